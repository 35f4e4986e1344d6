// Engine playground: a workload and scheduler knobs → simulated latencies, throughput and time series.
import { useState } from "react";
import { api, ApiError } from "../../../lib/api";
import { Histogram, LineChart } from "./charts";

interface Stats { p50: number; p90: number; p99: number; mean: number }
export interface EngineResult {
  num_requests: number; completed: number; makespan_s: number;
  ttft_s: Stats; tpot_s: Stats; e2e_s: Stats;
  throughput: { requests_per_s: number; output_tokens_per_s: number };
  goodput: { requests_per_s: number; fraction: number };
  preemptions: number; prefix_cache_hit_rate: number; steps: number; mean_batch_size: number;
  kv_cache: { blocks_per_replica: number; capacity_tokens_per_replica: number };
  cost: { gpus: number; usd_per_million_output_tokens: number };
  invariants: { tokens_conserved: boolean; all_finished: boolean; littles_law: { ok: boolean; relative_error: number } };
  series: { t_s: number[]; queue_depth: number[]; running: number[]; kv_usage: number[] };
  histograms: { ttft_s: { edges: number[]; counts: number[] }; tpot_s: { edges: number[]; counts: number[] } };
}

const ms = (s: number) => `${(s * 1000).toFixed(s < 0.01 ? 2 : 0)} ms`;

export default function EngineArea() {
  const [form, setForm] = useState({
    model: "llama-3.1-8b", gpu: "h100-sxm", tensor_parallel: "1", replicas: "1", router: "round_robin",
    rate: "10", num_requests: "300", prompt: "512", output: "128", max_num_seqs: "256",
    max_num_batched_tokens: "8192", chunked_prefill: true, prefix_caching: false, static_batching: false,
    block_size: "16", gpu_memory_utilization: "0.9", ttft: "1", tpot: "0.1", seed: "0",
  });
  const [result, setResult] = useState<EngineResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: string, v: string | boolean) => setForm({ ...form, [k]: v });

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const cluster = Number(form.replicas) > 1;
    const body: Record<string, unknown> = {
      model: form.model, gpu: form.gpu, seed: Number(form.seed), tensor_parallel: Number(form.tensor_parallel),
      max_num_seqs: Number(form.max_num_seqs), max_num_batched_tokens: Number(form.max_num_batched_tokens),
      chunked_prefill: form.chunked_prefill, prefix_caching: form.prefix_caching, static_batching: form.static_batching,
      block_size: Number(form.block_size), gpu_memory_utilization: Number(form.gpu_memory_utilization),
      slo: { ttft_s: Number(form.ttft), tpot_s: Number(form.tpot) },
      workload: {
        arrival_rate_per_s: Number(form.rate), num_requests: Number(form.num_requests),
        prompt_tokens: { dist: "lognormal", mean: Number(form.prompt), sigma: 0.5 },
        output_tokens: { dist: "lognormal", mean: Number(form.output), sigma: 0.5 },
      },
    };
    if (cluster) Object.assign(body, { replicas: Number(form.replicas), router: form.router });
    try {
      setResult(await api<EngineResult>(cluster ? "/simulators/cluster/" : "/simulators/engine/", { method: "POST", body }));
    } catch (err) {
      if (err instanceof ApiError) setError(err);
      else throw err;
    } finally {
      setBusy(false);
    }
  }

  const num = (k: keyof typeof form, label: string, step = "any") => (
    <label className="field">{label}
      <input type="number" step={step} value={form[k] as string} onChange={(e) => set(k, e.target.value)} />
      {error?.fieldMessage(k) && <span role="alert">{error.fieldMessage(k)}</span>}
    </label>
  );
  const check = (k: keyof typeof form, label: string) => (
    <label><input type="checkbox" checked={form[k] as boolean} onChange={(e) => set(k, e.target.checked)} /> {label}</label>
  );

  return (
    <section>
      <h1>Engine simulator</h1>
      <p className="muted">A discrete-event simulation of a vLLM-style scheduler: continuous batching, chunked prefill,
        paged KV cache with preemption, optional prefix caching; step times from the roofline model.</p>
      <form onSubmit={submit} className="lab-form" style={{ display: "grid", gridTemplateColumns: "repeat(auto-fill, minmax(12rem, 1fr))", gap: "0.6rem" }}>
        <label className="field">Model<input value={form.model} onChange={(e) => set("model", e.target.value)} /></label>
        <label className="field">GPU<input value={form.gpu} onChange={(e) => set("gpu", e.target.value)} /></label>
        {num("tensor_parallel", "Tensor parallel")}
        {num("replicas", "Replicas")}
        <label className="field">Router
          <select value={form.router} onChange={(e) => set("router", e.target.value)}>
            <option value="round_robin">round robin</option><option value="least_outstanding">least outstanding</option>
            <option value="prefix_aware">prefix aware</option>
          </select>
        </label>
        {num("rate", "Arrival rate (req/s)")}
        {num("num_requests", "Requests", "1")}
        {num("prompt", "Median prompt tokens", "1")}
        {num("output", "Median output tokens", "1")}
        {num("max_num_seqs", "max_num_seqs", "1")}
        {num("max_num_batched_tokens", "max_num_batched_tokens", "1")}
        {num("block_size", "KV block size", "1")}
        {num("gpu_memory_utilization", "GPU memory utilization")}
        {num("ttft", "SLO: TTFT (s)")}
        {num("tpot", "SLO: TPOT (s)")}
        {num("seed", "Seed", "1")}
        {check("chunked_prefill", "Chunked prefill")}
        {check("prefix_caching", "Prefix caching")}
        {check("static_batching", "Static batching")}
        <button type="submit" disabled={busy}>{busy ? "Simulating…" : "Simulate"}</button>
      </form>
      {error && <p role="alert">{error.body.detail}</p>}
      {result && <EngineReport r={result} />}
    </section>
  );
}

export function EngineReport({ r }: { r: EngineResult }) {
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
      <p className="muted">Invariants: tokens conserved {r.invariants.tokens_conserved ? "✓" : "✗"}, all finished{" "}
        {r.invariants.all_finished ? "✓" : "✗"}, Little's law {r.invariants.littles_law.ok ? "✓" : "✗"}{" "}
        ({(r.invariants.littles_law.relative_error * 100).toFixed(1)} % off)</p>
      <div style={{ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(20rem, 1fr))", gap: "1rem" }}>
        <Histogram title="TTFT distribution" edges={r.histograms.ttft_s.edges} counts={r.histograms.ttft_s.counts} color="var(--c-prefill)" unit="s" />
        <Histogram title="TPOT distribution" edges={r.histograms.tpot_s.edges} counts={r.histograms.tpot_s.counts} color="var(--c-decode)" unit="s" />
        <LineChart title="Queue and batch" x={r.series.t_s} xUnit="s" series={[
          { label: "waiting requests", color: "var(--c-prefill)", values: r.series.queue_depth },
          { label: "running batch", color: "var(--c-decode)", values: r.series.running },
        ]} />
        <LineChart title="KV cache usage (fraction of blocks)" x={r.series.t_s} xUnit="s" series={[
          { label: "KV usage", color: "var(--c-kv)", values: r.series.kv_usage },
        ]} />
      </div>
    </div>
  );
}
