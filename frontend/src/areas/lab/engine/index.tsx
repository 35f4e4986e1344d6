// Engine playground: a workload and scheduler knobs → simulated latencies, throughput and time series.
import { useEffect, useRef, useState } from "react";
import { api, ApiError } from "../../../lib/api";
import { useAuth } from "../../../lib/auth";
import { ModelGpuPicker, NumberInput, SelectInput } from "../form";
import { DTYPES, KV_DTYPES, modelChoice, num, ROUTERS, useQueryState, VLLM_DEFAULTS } from "../lib";
import { arrivalEnumValues } from "../../../generated/api";
import type { SimulatorResults } from "../lib";
import { PatternDefs } from "../../../diagrams/kit";
import { STEPPER_LEGEND, StepReplay } from "../../../diagrams/stepper";
import { C, Histogram, TimeSeries } from "../charts";

interface Stats { p50: number; p90: number; p99: number; mean: number }
export interface EngineResult {
  num_requests: number; completed: number; makespan_s: number;
  ttft_s: Stats; tpot_s: Stats; e2e_s: Stats;
  throughput: { requests_per_s: number; output_tokens_per_s: number };
  goodput: { requests_per_s: number; fraction: number };
  preemptions: number; prefix_cache_hit_rate: number; steps: number; mean_batch_size: number;
  kv_cache: { blocks_per_replica: number; capacity_tokens_per_replica: number };
  step_log?: SimulatorResults["engine"]["step_log"];
  cost: { gpus: number; usd_per_million_output_tokens: number };
  pools?: { prefill: number; decode: number };
  kv_transfer_s?: { mean: number; max: number };
  invariants: { tokens_conserved: boolean; all_finished: boolean; littles_law: { ok: boolean; relative_error: number } };
  series: { t_s: number[]; queue_depth: number[]; running: number[]; kv_usage: number[] };
  histograms: { ttft_s: { edges: number[]; counts: number[] }; tpot_s: { edges: number[]; counts: number[] } };
}

const ms = (s: number) => `${(s * 1000).toFixed(s < 0.01 ? 2 : 0)} ms`;

// Every setting lives in the query string (useQueryState): a reload or a shared link brings the same run back.
const DEFAULTS = {
  model: "llama-3.1-8b", gpu: "h100-sxm", tensor_parallel: "1", replicas: "1", router: "round_robin",
  rate: "10", num_requests: "300", prompt: "512", output: "128", max_num_seqs: "256",
  max_num_batched_tokens: "8192", chunked_prefill: "true", prefix_caching: "false", static_batching: "false",
  long_prefill_token_threshold: "0", scheduler_reserve_full_isl: "true",
  block_size: String(VLLM_DEFAULTS.block_size), gpu_memory_utilization: String(VLLM_DEFAULTS.gpu_memory_utilization),
  ttft: "1", tpot: "0.1", seed: "0", weight_dtype: "bf16", kv_dtype: "bf16", prompt_sigma: "0.5", output_sigma: "0.5",
  arrival: "poisson", burst_cv: "3", shared_prefix_tokens: "0", prefix_groups: "1", session_turns: "1",
  prefill_replicas: "0", decode_replicas: "0", prefill_tensor_parallel: "", decode_tensor_parallel: "",
};

/** A token length: lognormal around `mean` with spread `sigma`, or every request exactly `mean` when sigma is 0. */
function tokenLength(mean: number, sigma: number): number | Record<string, unknown> {
  return sigma > 0 ? { dist: "lognormal", mean, sigma } : mean;
}

const REPLAYED_STEPS = 120;  // the first engine's first steps come back with the result, to step through
// A P/D pool's own tensor parallelism; blank runs the pool at tensor_parallel.
const POOL_TP_OPTIONS: [string, string][] = [["", "as tensor parallel"], ...["1", "2", "4", "8", "16"].map(
  (tp): [string, string] => [tp, tp])];

function engineBody(v: Record<string, string>): Record<string, unknown> {
  const n = (k: string) => num(v[k], 0);
  const body: Record<string, unknown> = {
    ...modelChoice(v), gpu: v.gpu, seed: n("seed"), tensor_parallel: n("tensor_parallel"),
    max_num_seqs: n("max_num_seqs"), max_num_batched_tokens: n("max_num_batched_tokens"),
    chunked_prefill: v.chunked_prefill === "true", prefix_caching: v.prefix_caching === "true",
    static_batching: v.static_batching === "true",
    long_prefill_token_threshold: n("long_prefill_token_threshold"),
    scheduler_reserve_full_isl: v.scheduler_reserve_full_isl === "true",
    block_size: n("block_size"), gpu_memory_utilization: n("gpu_memory_utilization"),
    weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype,
    slo: { ttft_s: n("ttft"), tpot_s: n("tpot") },
    trace_steps: REPLAYED_STEPS,
    workload: {
      arrival_rate_per_s: n("rate"), num_requests: n("num_requests"),
      prompt_tokens: tokenLength(n("prompt"), n("prompt_sigma")),
      output_tokens: tokenLength(n("output"), n("output_sigma")),
      arrival: v.arrival, ...(v.arrival === "poisson" ? {} : { burst_cv: n("burst_cv") }),
      shared_prefix_tokens: n("shared_prefix_tokens"), prefix_groups: n("prefix_groups"), session_turns: n("session_turns"),
    },
  };
  if (n("prefill_replicas") > 0 && n("decode_replicas") > 0) {
    // Prefill and decode pools (the cluster simulator's disaggregation): replaces the replica count.
    // Each pool runs tensor_parallel unless given its own.
    const poolTp = Object.fromEntries(["prefill_tensor_parallel", "decode_tensor_parallel"]
      .filter((k) => v[k]).map((k) => [k, n(k)]));
    Object.assign(body, { replicas: 1, router: v.router,
      disaggregation: { prefill_replicas: n("prefill_replicas"), decode_replicas: n("decode_replicas"), ...poolTp } });
  } else if (n("replicas") > 1) Object.assign(body, { replicas: n("replicas"), router: v.router });
  return body;
}

interface EngineJob {
  id: string; status: "queued" | "running" | "succeeded" | "failed" | "cancelled"; progress: number;
  num_requests: number; result: EngineResult | null; error: { detail: string } | null;
}

/** Past the synchronous caps (more than 2,000 requests, or a long run): the same body as a background job, polled
 * every second until it ends; cancel stops the worker at its next progress report. */
function useBackgroundRun(onResult: (result: EngineResult) => void, onError: (error: ApiError | null) => void) {
  const [job, setJob] = useState<EngineJob | null>(null);
  const live = useRef(true);
  useEffect(() => () => { live.current = false; }, []);
  async function start(body: Record<string, unknown>) {
    onError(null);
    try {
      let current = await api<EngineJob>("/simulators/engine-jobs/", { method: "POST", body });
      setJob(current);
      while (live.current && (current.status === "queued" || current.status === "running")) {
        await new Promise((resolve) => window.setTimeout(resolve, 1000));
        current = await api<EngineJob>(`/simulators/engine-jobs/${current.id}/`);
        setJob(current);
      }
      if (current.status === "succeeded" && current.result) onResult(current.result);
    } catch (err) {
      if (err instanceof ApiError) onError(err);
      else throw err;
    }
  }
  async function cancel() {
    if (job) setJob(await api<EngineJob>(`/simulators/engine-jobs/${job.id}/cancel/`, { method: "POST" }));
  }
  return { job, start, cancel };
}

export default function EngineArea() {
  const [v, set] = useQueryState(DEFAULTS);
  const [result, setResult] = useState<EngineResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const { user } = useAuth();
  const background = useBackgroundRun(setResult, setError);
  const jobActive = background.job?.status === "queued" || background.job?.status === "running";

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = engineBody(v);
    try {
      setResult(await api<EngineResult>(body.replicas ? "/simulators/cluster/" : "/simulators/engine/", { method: "POST", body }));
    } catch (err) {
      if (err instanceof ApiError) setError(err);
      else throw err;
    } finally {
      setBusy(false);
    }
  }

  const field = (name: string, label: string, step: string = "any") => (
    <NumberInput name={name} label={label} values={v} set={set} min={0} step={step} error={error} />
  );
  const check = (k: string, label: string) => (
    <label className="lab-check"><input type="checkbox" name={k} checked={v[k] === "true"} onChange={(e) => set({ [k]: String(e.target.checked) })} /> {label}</label>
  );

  return (
    <section className="lab-tool">
      <h1>Engine simulator</h1>
      <p className="muted">A discrete-event simulation of a vLLM-style scheduler: continuous batching, chunked prefill,
        paged KV cache with preemption, optional prefix caching, scheduled step for step as vLLM v0.33.0's scheduler
        does; step times from the roofline model. Up to 2,000 requests answer at once; signed in, up to 20,000 run in
        the background. The address bar
        holds every setting — copy it to share the run.</p>
      <form onSubmit={submit} className="lab-form lab-engine-form" aria-label="Engine settings">
        <ModelGpuPicker values={v} set={set} error={error} />
        {field("tensor_parallel", "Tensor parallel", "1")}
        {field("replicas", "Replicas", "1")}
        <SelectInput name="router" label="Router" values={v} set={set} options={ROUTERS} />
        {field("rate", "Arrival rate (req/s)")}
        {field("num_requests", "Requests", "1")}
        {field("prompt", "Median prompt tokens", "1")}
        {field("prompt_sigma", "Prompt spread (lognormal σ; 0: all equal)")}
        {field("output", "Median output tokens", "1")}
        {field("output_sigma", "Output spread (lognormal σ; 0: all equal)")}
        <SelectInput name="arrival" label="Arrivals" values={v} set={set} options={[...arrivalEnumValues]} />
        {v.arrival !== "poisson" && field("burst_cv", "Burstiness (CV of gaps)")}
        {field("shared_prefix_tokens", "Shared prefix tokens", "1")}
        {field("prefix_groups", "Prefix groups", "1")}
        {field("session_turns", "Turns per session", "1")}
        <SelectInput name="weight_dtype" label="Weight dtype" values={v} set={set} options={DTYPES} />
        <SelectInput name="kv_dtype" label="KV dtype" values={v} set={set} options={KV_DTYPES} />
        {field("prefill_replicas", "Prefill replicas (0: no P/D split)", "1")}
        {field("decode_replicas", "Decode replicas (0: no P/D split)", "1")}
        {num(v.prefill_replicas, 0) > 0 && num(v.decode_replicas, 0) > 0 && <>
          <SelectInput name="prefill_tensor_parallel" label="Prefill pool TP" values={v} set={set}
            options={POOL_TP_OPTIONS} />
          <SelectInput name="decode_tensor_parallel" label="Decode pool TP" values={v} set={set}
            options={POOL_TP_OPTIONS} />
        </>}
        {field("max_num_seqs", "max_num_seqs", "1")}
        {field("max_num_batched_tokens", "max_num_batched_tokens", "1")}
        {field("long_prefill_token_threshold", "long_prefill_token_threshold", "1")}
        {field("block_size", "KV block size", "1")}
        {field("gpu_memory_utilization", "GPU memory utilization")}
        {field("ttft", "SLO: TTFT (s)")}
        {field("tpot", "SLO: TPOT (s)")}
        {field("seed", "Seed", "1")}
        {check("chunked_prefill", "Chunked prefill")}
        {check("prefix_caching", "Prefix caching")}
        {check("static_batching", "Static batching")}
        {check("scheduler_reserve_full_isl", "Whole prompt must fit (scheduler_reserve_full_isl)")}
        <button type="submit" disabled={busy}>{busy ? "Simulating…" : "Simulate"}</button>
        {user && (
          <button type="button" disabled={jobActive} onClick={() => void background.start(engineBody(v))}
            title="Up to 20,000 requests, run by a worker with progress">Run in the background</button>
        )}
      </form>
      {background.job && (
        <div className="lab-job" data-testid="engine-job" role="status">
          {jobActive ? (
            <>
              Simulating {background.job.num_requests.toLocaleString()} requests in the background:{" "}
              <progress max={1} value={background.job.progress} aria-label="Requests finished" />{" "}
              {Math.round(background.job.progress * 100)} % finished{" "}
              <button type="button" onClick={() => void background.cancel()}>Cancel</button>
            </>
          ) : background.job.status === "succeeded" ? (
            <>Background run of {background.job.num_requests.toLocaleString()} requests done.</>
          ) : background.job.status === "cancelled" ? <>Background run cancelled.</> : (
            <>Background run failed: {background.job.error?.detail}</>
          )}
        </div>
      )}
      {error && <p role="alert" className="lab-error">{error.message}</p>}
      {result && <div aria-busy={busy} className={busy ? "lab-updating" : undefined}><EngineReport r={result} budget={num(v.max_num_batched_tokens, 8192)} /></div>}
    </section>
  );
}

export function EngineReport({ r, budget }: { r: EngineResult; budget?: number }) {
  return (
    <div data-testid="engine-result">
      <table>
        <thead><tr><th /><th>p50</th><th>p90</th><th>p99</th></tr></thead>
        <tbody>
          {(["ttft_s", "tpot_s", "e2e_s"] as const).map((k) => (
            <tr key={k}><th>{k.replace("_s", "").toUpperCase()}</th><td>{ms(r[k].p50)}</td><td>{ms(r[k].p90)}</td><td>{ms(r[k].p99)}</td></tr>
          ))}
        </tbody>
      </table>
      <p>
        {r.throughput.output_tokens_per_s.toFixed(0)} output tokens/s · goodput {r.goodput.requests_per_s.toFixed(2)} req/s
        ({(r.goodput.fraction * 100).toFixed(0)} % within SLO) · {r.preemptions} preemptions ·
        prefix-cache hits {(r.prefix_cache_hit_rate * 100).toFixed(0)} % · mean batch {r.mean_batch_size.toFixed(1)} ·
        KV {r.kv_cache.capacity_tokens_per_replica.toLocaleString()} tokens/replica ·
        ${r.cost.usd_per_million_output_tokens.toFixed(3)} per million tokens
      </p>
      <p data-testid="engine-deployment">
        {r.cost.gpus} GPU{r.cost.gpus === 1 ? "" : "s"}
        {r.pools && ` in ${r.pools.prefill} prefill + ${r.pools.decode} decode replicas`}
        {r.kv_transfer_s && ` · KV transfer ${ms(r.kv_transfer_s.mean)} mean, ${ms(r.kv_transfer_s.max)} max`}
      </p>
      <p className="muted">Invariants: tokens conserved {r.invariants.tokens_conserved ? "✓" : "✗"}, all finished{" "}
        {r.invariants.all_finished ? "✓" : "✗"}, Little's law {r.invariants.littles_law.ok ? "✓" : "✗"}{" "}
        ({(r.invariants.littles_law.relative_error * 100).toFixed(1)} % off)</p>
      <div style={{ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(20rem, 1fr))", gap: "1rem" }}>
        <Histogram title="TTFT distribution" edges={r.histograms.ttft_s.edges} counts={r.histograms.ttft_s.counts} color={C.prefill} unit="s" />
        <Histogram title="TPOT distribution" edges={r.histograms.tpot_s.edges} counts={r.histograms.tpot_s.counts} color={C.decode} unit="s" />
        <TimeSeries title="Queue and batch" x={r.series.t_s} xUnit="s" series={[
          { label: "waiting requests", color: C.waste, values: r.series.queue_depth },
          { label: "running batch", color: C.decode, values: r.series.running },
        ]} />
        <TimeSeries title="KV cache usage (fraction of blocks)" x={r.series.t_s} xUnit="s" series={[
          { label: "KV usage", color: C.kv, values: r.series.kv_usage },
        ]} />
      </div>
      {r.step_log && r.step_log.length > 0 && (
        <StepReplay log={r.step_log} budget={budget ?? Math.max(...r.step_log.map((row) => row.tokens), 1)}
          blocks={r.kv_cache.blocks_per_replica}
          frame={({ controls, numbers, picture }) => (
            <section className="diagram-live" data-testid="engine-steps" aria-label="The first engine steps">
              <PatternDefs />
              <h3>The first {r.step_log?.length} steps, as the scheduler ran them</h3>
              <div className="diagram-controls">{controls}</div>
              {picture}
              {STEPPER_LEGEND}
              <p className="diagram-numbers" aria-live="polite" data-testid="diagram-numbers">{numbers}</p>
            </section>
          )} />
      )}
    </div>
  );
}
