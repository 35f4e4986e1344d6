// One panel per simulator, each pre-filled from the query string that chapters link with.
import { useState } from "react";
import { Bars, C, Legend, Plot } from "./charts";
import { DtypePicker, Explain, ModelGpuPicker, NumberInput, SelectInput, Stat } from "./form";
import {
  COLLECTIVE_ALGORITHMS, COLLECTIVE_OPS, fmtBytes, fmtNum, fmtSeconds, KV_DTYPES, modelChoice, num, PHASES, useCatalog, useQueryState,
  useSimulation, VLLM_DEFAULTS, type SimulatorResults,
} from "./lib";
import { CostView, CurveView, MemoryView, StepView } from "./views";

export const BASE_DEFAULTS = {
  model: "llama-3.1-8b", gpu: "h100-sxm", kv_dtype: "bf16", weight_dtype: "bf16", context_tokens: "8192",
  batch_size: "16", tensor_parallel: "1", phase: "decode",
};

function useTool(extra: Record<string, string> = {}) {
  return useQueryState({ ...BASE_DEFAULTS, ...extra });
}

export function KVCachePanel() {
  const [v, set] = useTool();
  const { data, error } = useSimulation("kv-cache", {
    ...modelChoice(v), kv_dtype: v.kv_dtype, context_tokens: num(v.context_tokens, 0), batch_size: num(v.batch_size, 0),
    tensor_parallel: num(v.tensor_parallel, 0),
  });
  return (
    <Tool title="KV-cache size" form={<>
      <ModelGpuPicker values={v} set={set} noGpu error={error} />
      <DtypePicker values={v} set={set} weights={false} />
      <NumberInput name="context_tokens" label="Context tokens" values={v} set={set} error={error} />
      <NumberInput name="batch_size" label="Batch size" values={v} set={set} error={error} />
      <NumberInput name="tensor_parallel" label="Tensor parallel" values={v} set={set} error={error} />
    </>}>
      {data && (
        <dl className="lab-stats">
          <Stat label="Bytes per token" value={fmtNum(data.bytes_per_token)} testId="kv-bytes-per-token" />
          <Stat label="Per sequence" value={fmtBytes(data.bytes_per_sequence)} />
          <Stat label="Whole batch" value={fmtBytes(data.total_bytes)} testId="kv-total" />
          <Stat label="Per GPU" value={fmtBytes(data.per_gpu_bytes)} />
          <Stat label="KV heads per GPU" value={String(data.heads_per_gpu)} />
        </dl>
      )}
      <Explain data={data} error={error} />
    </Tool>
  );
}

export function FitPanel() {
  const [v, set] = useTool({ gpu_memory_utilization: String(VLLM_DEFAULTS.gpu_memory_utilization) });
  const { data, error, loading } = useSimulation("fit", fitBody(v));
  return (
    <Tool title="Will it fit?" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <DtypePicker values={v} set={set} />
      <NumberInput name="context_tokens" label="Context tokens" values={v} set={set} error={error} />
      <NumberInput name="batch_size" label="Batch size" values={v} set={set} error={error} />
      <NumberInput name="tensor_parallel" label="Tensor parallel" values={v} set={set} error={error} />
      <NumberInput name="gpu_memory_utilization" label="GPU memory utilization" values={v} set={set} min={0.01} max={1} step={0.01} error={error} />
    </>}>
      {data && <MemoryView fit={data} />}
      <Explain data={data} error={error} loading={loading} />
    </Tool>
  );
}

export function fitBody(v: Record<string, string>) {
  return {
    ...modelChoice(v), gpu: v.gpu, weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype, context_tokens: num(v.context_tokens, 0),
    batch_size: num(v.batch_size, 0), tensor_parallel: num(v.tensor_parallel, 0), gpu_memory_utilization: num(v.gpu_memory_utilization, VLLM_DEFAULTS.gpu_memory_utilization),
  };
}

export function stepBody(v: Record<string, string>) {
  return {
    ...modelChoice(v), gpu: v.gpu, phase: v.phase, batch_size: num(v.batch_size, 0), context_tokens: num(v.context_tokens, 0),
    tensor_parallel: num(v.tensor_parallel, 0), weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype,
  };
}

export function StepTimePanel() {
  const [v, set] = useTool();
  const { data, error, loading } = useSimulation("step-time", stepBody(v));
  return (
    <Tool title="Step time and the roofline" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <SelectInput name="phase" label="Phase" values={v} set={set} options={PHASES} />
      <DtypePicker values={v} set={set} />
      <NumberInput name="context_tokens" label={v.phase === "prefill" ? "Prompt tokens" : "Cached context tokens"} values={v} set={set} error={error} />
      <NumberInput name="batch_size" label="Batch size" values={v} set={set} error={error} />
      <NumberInput name="tensor_parallel" label="Tensor parallel" values={v} set={set} error={error} />
    </>}>
      {data && <StepView step={data} />}
      <Explain data={data} error={error} loading={loading} />
    </Tool>
  );
}

export function curveBody(v: Record<string, string>) {
  return {
    ...modelChoice(v), gpu: v.gpu, prompt_tokens: num(v.context_tokens, 0), output_tokens: num(v.output_tokens, 256),
    tensor_parallel: num(v.tensor_parallel, 0), weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype,
  };
}

export function ThroughputLatencyPanel() {
  const [v, set] = useTool({ output_tokens: "256", context_tokens: "2048" });
  const { data, error, loading } = useSimulation("throughput-latency", curveBody(v));
  return (
    <Tool title="Throughput vs latency" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <DtypePicker values={v} set={set} />
      <NumberInput name="context_tokens" label="Prompt tokens" values={v} set={set} error={error} />
      <NumberInput name="output_tokens" label="Output tokens" values={v} set={set} error={error} />
      <NumberInput name="batch_size" label="Highlight batch" values={v} set={set} />
      <NumberInput name="tensor_parallel" label="Tensor parallel" values={v} set={set} error={error} />
    </>}>
      {data && <CurveView curve={data} highlight={num(v.batch_size, 0)} />}
      <Explain data={data} error={error} loading={loading} />
    </Tool>
  );
}

export function capacityBody(v: Record<string, string>) {
  const prompt = num(v.context_tokens, 0);
  return {
    ...modelChoice(v), gpu: v.gpu, weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype,
    workload: { requests_per_s: num(v.requests_per_s, 10), prompt_tokens: prompt, output_tokens: num(v.output_tokens, 256) },
    slo: { ttft_p99_s: num(v.ttft_p99_s, 2), tpot_s: num(v.tpot_s, 0.05) },
    ...(v.price_per_gpu_hour_usd ? { price_per_gpu_hour_usd: num(v.price_per_gpu_hour_usd, 0) } : {}),
  };
}

export function CapacityPanel() {
  const [v, set] = useTool({ requests_per_s: "10", output_tokens: "256", ttft_p99_s: "2", tpot_s: "0.05", context_tokens: "2000" });
  const { data, error, loading } = useSimulation("capacity", capacityBody(v));
  return (
    <Tool title="Capacity and cost" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <DtypePicker values={v} set={set} />
      <NumberInput name="requests_per_s" label="Requests/s" values={v} set={set} min={0} error={error} />
      <NumberInput name="context_tokens" label="Prompt tokens" values={v} set={set} error={error} />
      <NumberInput name="output_tokens" label="Output tokens" values={v} set={set} error={error} />
      <NumberInput name="ttft_p99_s" label="p99 TTFT SLO (s)" values={v} set={set} min={0} error={error} />
      <NumberInput name="tpot_s" label="TPOT SLO (s)" values={v} set={set} min={0} error={error} />
      <NumberInput name="price_per_gpu_hour_usd" label="$ per GPU-hour (blank: catalog)" values={v} set={set} min={0} error={error} />
    </>}>
      {data && <CostView cap={data} />}
      <Explain data={data} error={error} loading={loading} />
    </Tool>
  );
}

export function SpeculativePanel() {
  const [v, set] = useQueryState({ acceptance_rate: "0.7", draft_tokens: "4", draft_cost: "0.05" });
  const { data, error } = useSimulation("speculative", {
    acceptance_rate: num(v.acceptance_rate, -1), draft_tokens: num(v.draft_tokens, -1), draft_cost: num(v.draft_cost, -1),
  });
  return (
    <Tool title="Speculative decoding" form={<>
      <NumberInput name="acceptance_rate" label="Acceptance rate α" values={v} set={set} min={0} max={1} step={0.01} error={error} />
      <NumberInput name="draft_tokens" label="Draft tokens γ" values={v} set={set} min={0} max={64} step={1} error={error} />
      <NumberInput name="draft_cost" label="Draft cost c (target steps)" values={v} set={set} min={0} step={0.01} error={error} />
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Expected tokens per step" value={fmtNum(data.expected_tokens_per_step)} testId="spec-tokens" />
          <Stat label="Speedup" value={`${fmtNum(data.speedup)}×`} />
          <Stat label="Best γ" value={`${data.optimal_draft_tokens} (${fmtNum(data.optimal_speedup)}×)`} />
        </dl>
        <Plot title="Speedup vs draft length" xLabel="draft tokens γ" yLabel="speedup ×" fmtY={(y) => y.toFixed(1)}
          series={[{ label: "speedup E/(γc+1)", color: C.decode, points: data.curve.map((p) => [p.draft_tokens, p.speedup]) },
            { label: "tokens per step E", color: C.tokens, points: data.curve.map((p) => [p.draft_tokens, p.expected_tokens_per_step]) }]}
          markers={[{ label: `γ=${v.draft_tokens}`, x: num(v.draft_tokens, 0), y: data.speedup, color: "var(--fg)" }]} />
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

export function CollectivesPanel() {
  const [v, set] = useTool({ op: "all_reduce", algorithm: "ring", tensor_parallel: "8", batch_size: "32" });
  const { models } = useCatalog();
  const hidden = models.find((m) => m.slug === v.model)?.hidden_size ?? 4096;
  // A TP all-reduce moves the activations of every token in the step: tokens · hidden · 2 bytes.
  const tokens = v.phase === "prefill" ? num(v.context_tokens, 1) : num(v.batch_size, 1);
  const message = num(v.message_bytes, tokens * hidden * 2);
  const { data, error } = useSimulation("collectives", {
    op: v.op, algorithm: v.op === "all_reduce" ? v.algorithm : "ring", message_bytes: message, num_gpus: num(v.tensor_parallel, 0), gpu: v.gpu,
  });
  const colors: Record<string, string> = { ring: C.communication, tree: "var(--fg-soft)", one_shot: "var(--fg)" };
  return (
    <Tool title="Collectives (α–β)" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <SelectInput name="op" label="Operation" values={v} set={set} options={COLLECTIVE_OPS} />
      <SelectInput name="algorithm" label="Algorithm" values={v} set={set} options={COLLECTIVE_ALGORITHMS} />
      <NumberInput name="tensor_parallel" label="GPUs" values={v} set={set} error={error} />
      <SelectInput name="phase" label="Phase (sets the message)" values={v} set={set} options={PHASES} />
      <label className="lab-field"><span>Message bytes</span>
        <input type="number" value={String(message)} min={1} onChange={(e) => set({ message_bytes: e.target.value })} /></label>
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Time" value={fmtSeconds(data.seconds)} testId="coll-seconds" />
          <Stat label="Bandwidth / latency term" value={`${fmtSeconds(data.bandwidth_term_seconds)} / ${fmtSeconds(data.latency_term_seconds)}`} />
          <Stat label="Bus bandwidth" value={`${fmtBytes(data.bus_bandwidth_bytes_per_s)}/s`} />
          <Stat label="Bound" value={`${data.bound}-bound`} />
        </dl>
        <Plot title="Collective time vs message size" logX logY xLabel="message bytes" yLabel="seconds"
          fmtX={(x) => fmtBytes(x)} fmtY={(y) => fmtSeconds(y)}
          series={data.curves.map((c) => ({ label: c.algorithm, color: colors[c.algorithm], points: c.message_bytes.map((m, i) => [m, c.seconds[i]]) }))}
          markers={[{ label: "this message", x: data.message_bytes, y: data.seconds, color: C.communication }]} />
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

function sequenceLengths(mean: number, count: number): number[] {
  // Deterministic spread 0.2×–1.8× the mean (a golden-ratio sequence), so the URL fully describes the view.
  return Array.from({ length: count }, (_, i) => Math.max(1, Math.round(mean * (0.2 + 1.6 * ((i * 0.6180339887) % 1)))));
}

export function PagedKVPanel() {
  const [v, set] = useTool({ block_size: String(VLLM_DEFAULTS.block_size), context_tokens: "1000", batch_size: "24" });
  const count = Math.min(Math.max(num(v.batch_size, 1), 1), 10_000);
  const lengths = sequenceLengths(num(v.context_tokens, 1), count);
  const maxLen = num(v.max_model_len, Math.max(...lengths, 2 * num(v.context_tokens, 1)));
  const { data, error } = useSimulation("paged-kv", {
    ...modelChoice(v), kv_dtype: v.kv_dtype, block_size: num(v.block_size, 0), sequence_lengths: lengths, max_model_len: maxLen,
  });
  return (
    <Tool title="Paged KV cache" form={<>
      <ModelGpuPicker values={v} set={set} noGpu error={error} />
      <NumberInput name="block_size" label="Block size (tokens)" values={v} set={set} error={error} />
      <NumberInput name="context_tokens" label="Mean sequence length" values={v} set={set} error={error} />
      <NumberInput name="batch_size" label="Sequences" values={v} set={set} max={10000} error={error} />
      <NumberInput name="max_model_len" label="max_model_len (contiguous reservation)" values={{ ...v, max_model_len: String(maxLen) }} set={set} error={error} />
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Contiguous waste" value={`${(data.contiguous_waste_fraction * 100).toFixed(1)} % (${fmtBytes(data.contiguous_waste_bytes)})`} testId="paged-contiguous" />
          <Stat label="Paged waste" value={`${(data.paged_waste_fraction * 100).toFixed(1)} % (${fmtBytes(data.paged_waste_bytes)})`} testId="paged-paged" />
          <Stat label="Blocks" value={fmtNum(data.total_blocks)} />
        </dl>
        <Pager sequences={data.sequences.slice(0, 24)} blockSize={data.block_size} />
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

function Pager({ sequences, blockSize }: { sequences: SimulatorResults["paged-kv"]["sequences"]; blockSize: number }) {
  const maxBlocks = Math.max(...sequences.map((s) => s.blocks), 1);
  const cell = Math.max(2, Math.min(16, 520 / maxBlocks));
  return (
    <figure className="lab-chart">
      <figcaption>Blocks per sequence (first {sequences.length}); the last block of each is only partly filled</figcaption>
      <svg viewBox={`0 0 600 ${sequences.length * 14 + 4}`} role="img" aria-label="Paged KV blocks">
        {sequences.map((s, row) => (
          <g key={row}>
            <text x={52} y={row * 14 + 13} className="lab-tick" textAnchor="end">{s.tokens}</text>
            {Array.from({ length: s.blocks }, (_, b) => {
              const fill = b === s.blocks - 1 ? s.last_block_tokens / blockSize : 1;
              return (
                <g key={b}>
                  <rect x={58 + b * cell} y={row * 14 + 3} width={cell - 1} height={11} style={{ fill: C.waste }} />
                  <rect x={58 + b * cell} y={row * 14 + 3} width={(cell - 1) * fill} height={11} style={{ fill: C.kv }} />
                </g>
              );
            })}
          </g>
        ))}
      </svg>
      <Legend items={[{ label: "KV cache: tokens stored", color: C.kv }, { label: "internal fragmentation (waste)", color: C.waste }]} />
    </figure>
  );
}

export function PrefixCachePanel() {
  const [v, set] = useTool({ block_size: String(VLLM_DEFAULTS.block_size), batch_size: "20", context_tokens: "2200", system_share: "0.8", capacity_blocks: "2000", system_prompts: "2" });
  const ctx = num(v.context_tokens, 1);
  const share = Math.min(Math.max(num(v.system_share, 0.8), 0), 1);
  const requests = Math.max(1, Math.min(num(v.batch_size, 1), 2000));
  const perRequest = Math.max(1, Math.min(ctx, Math.floor(2_000_000 / requests)));
  const { data, error } = useSimulation("prefix-cache", {
    synthetic: { num_requests: requests, num_system_prompts: num(v.system_prompts, 1), system_tokens: Math.round(perRequest * share),
      user_tokens: perRequest - Math.round(perRequest * share), seed: 0 },
    block_size: num(v.block_size, 0), capacity_blocks: num(v.capacity_blocks, 0),
  });
  return (
    <Tool title="Prefix caching" form={<>
      <NumberInput name="batch_size" label="Requests" values={v} set={set} error={error} />
      <NumberInput name="context_tokens" label="Prompt tokens" values={v} set={set} error={error} />
      <NumberInput name="system_share" label="Shared system-prompt share" values={v} set={set} min={0} max={1} step={0.05} error={error} />
      <NumberInput name="system_prompts" label="Distinct system prompts" values={v} set={set} error={error} />
      <NumberInput name="block_size" label="Block size" values={v} set={set} error={error} />
      <NumberInput name="capacity_blocks" label="Cache capacity (blocks)" values={v} set={set} min={0} error={error} />
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Block hit rate" value={`${(data.hit_rate * 100).toFixed(1)} %`} testId="prefix-hit-rate" />
          <Stat label="Prompt tokens skipping prefill" value={`${(data.token_hit_rate * 100).toFixed(1)} %`} />
          <Stat label="Evictions" value={fmtNum(data.evictions)} />
        </dl>
        <HashChains prompts={data.prompts.slice(0, 8)} />
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

function HashChains({ prompts }: { prompts: SimulatorResults["prefix-cache"]["prompts"] }) {
  return (
    <figure className="lab-chart">
      <figcaption>Hash chain per request: block key = hash(parent key, block tokens); cached blocks are reused</figcaption>
      <ol className="lab-chains">
        {prompts.map((p, i) => (
          <li key={i}>
            {p.hashes.slice(0, 10).map((h: string, b: number) => (
              <span key={b} className="lab-chip" style={{ borderColor: b < p.hit_blocks ? C.kv : C.prefill }}
                title={b < p.hit_blocks ? "hit: KV reused" : "miss: prefill computes it"}>{h.slice(0, 6)}</span>
            ))}
            {p.blocks > 10 && <span className="lab-range"> … {p.blocks} blocks, {p.hit_blocks} hit</span>}
          </li>
        ))}
      </ol>
      <Legend items={[{ label: "cache hit (KV reused)", color: C.kv }, { label: "miss (prefill)", color: "var(--fg)" }]} />
    </figure>
  );
}

export function MoEPanel() {
  const [v, set] = useTool({ zipf_exponent: "0.8", capacity_factor: "1.25", batch_size: "64" });
  const { models } = useCatalog();
  const model = models.find((m) => m.slug === v.model);
  const experts = num(v.num_experts, model?.num_experts ?? 64);
  const topK = num(v.top_k, model?.experts_per_token ?? 2);
  const { data, error } = useSimulation("moe", {
    num_experts: experts, top_k: topK, tokens: num(v.batch_size, 0), zipf_exponent: num(v.zipf_exponent, 0),
    capacity_factor: num(v.capacity_factor, 0), hidden_size: model?.hidden_size ?? 0,
  });
  return (
    <Tool title="MoE expert load" form={<>
      <ModelGpuPicker values={v} set={set} noGpu />
      <NumberInput name="num_experts" label="Experts N" values={{ ...v, num_experts: String(experts) }} set={set} error={error} />
      <NumberInput name="top_k" label="Top-k" values={{ ...v, top_k: String(topK) }} set={set} error={error} />
      <NumberInput name="batch_size" label="Tokens in the step" values={v} set={set} error={error} />
      <NumberInput name="zipf_exponent" label="Routing skew (Zipf s)" values={v} set={set} min={0} step={0.1} error={error} />
      <NumberInput name="capacity_factor" label="Capacity factor" values={v} set={set} min={0.01} step={0.05} error={error} />
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Imbalance (max/mean)" value={`${fmtNum(data.imbalance)}×`} testId="moe-imbalance" />
          <Stat label="Dropped tokens" value={fmtNum(data.dropped_tokens)} />
          <Stat label="Distinct experts touched" value={`${fmtNum(data.distinct_experts)} (uniform ${fmtNum(data.expected_distinct_experts_uniform)})`} />
          <Stat label="All-to-all per layer" value={fmtBytes(data.all_to_all_bytes_per_layer)} />
        </dl>
        <Bars title="Expected load per expert" values={data.expected_load_tokens} color={C.tokens}
          line={data.capacity_tokens} lineLabel="capacity per expert" />
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

export function ServeConfigPanel() {
  const [v, set] = useTool({ context_tokens: "2000", output_tokens: "500", batch_size: "1" });
  const { data, error } = useSimulation("serve-config", {
    ...modelChoice(v), gpu: v.gpu, weight_dtype: v.weight_dtype, kv_dtype: KV_DTYPES.includes(v.kv_dtype) ? v.kv_dtype : "bf16",
    workload: { prompt_tokens: num(v.context_tokens, 0), output_tokens: num(v.output_tokens, 0), concurrency: num(v.batch_size, 1) },
  });
  return (
    <Tool title="vllm serve configuration" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <DtypePicker values={v} set={set} kvDtypes={KV_DTYPES} />
      <NumberInput name="context_tokens" label="Prompt tokens" values={v} set={set} error={error} />
      <NumberInput name="output_tokens" label="Output tokens" values={v} set={set} error={error} />
      <NumberInput name="batch_size" label="Concurrent sequences that must fit" values={v} set={set} error={error} />
    </>}>
      {data && (<>
        <Copyable label="Command" text={data.command} />
        <table className="lab-table"><thead><tr><th>Flag</th><th>Value</th><th>Why</th></tr></thead>
          <tbody>{data.flags.map((f) => <tr key={f.flag}><td><code>{f.flag}</code></td><td>{f.value == null ? "" : String(f.value)}</td><td>{f.why}</td></tr>)}</tbody>
        </table>
        <Copyable label="Kubernetes manifests (Deployment, Service, HPA; explained in the manifest explorer)" text={data.kubernetes_yaml} />
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

function Copyable({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="lab-copy">
      <div><strong>{label}</strong> <button type="button" onClick={() => navigator.clipboard?.writeText(text).then(() => setCopied(true))}>{copied ? "Copied" : "Copy"}</button></div>
      <pre><code>{text}</code></pre>
    </div>
  );
}

export function Tool({ title, form, children }: { title: string; form: React.ReactNode; children: React.ReactNode }) {
  return (
    <section className="lab-tool">
      <h2>{title}</h2>
      <div className="lab-grid">
        <form className="lab-form" onSubmit={(e) => e.preventDefault()} aria-label={`${title} inputs`}>{form}</form>
        <div className="lab-results" aria-live="polite">{children}</div>
      </div>
    </section>
  );
}


export const PANELS = {
  "kv-cache": KVCachePanel, fit: FitPanel, "step-time": StepTimePanel, "throughput-latency": ThroughputLatencyPanel,
  capacity: CapacityPanel, speculative: SpeculativePanel, collectives: CollectivesPanel, "paged-kv": PagedKVPanel,
  "prefix-cache": PrefixCachePanel, moe: MoEPanel, "serve-config": ServeConfigPanel,
};
