// Memory diagrams: KV growth per layer, paged blocks, the memory breakdown, the prefix-cache hash chain.
import { useState } from "react";
import { fmtBytes, fmtNum, useCatalog, useSimulation } from "../areas/lab/lib";
import { Block, Frame, Legend, POW2, Slider, StepSlider, type Params } from "./kit";

export function Value({ value, text }: { value: number | undefined; text: string }) {
  return <strong data-testid="diagram-value" data-value={value ?? ""}>{text}</strong>;
}

function ModelPicker({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const { models } = useCatalog();
  return (
    <label>Model
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid="diagram-model">
        {models.length === 0 && <option value={value}>{value}</option>}
        {models.map((m) => <option key={m.slug} value={m.slug}>{m.name}</option>)}
      </select>
    </label>
  );
}

export function KvGrowth({ params }: { params: Params }) {
  const [model, setModel] = useState(String(params.model));
  const [context, setContext] = useState(Number(params.context_tokens));
  const { models } = useCatalog();
  const spec = models.find((m) => m.slug === model);
  const { data, error } = useSimulation("kv-cache", { model, kv_dtype: params.kv_dtype, context_tokens: context, batch_size: 1 });
  const layers = spec?.num_layers ?? 32;
  const sliding = data?.sliding_window_layers ?? 0;
  const perLayer = data ? data.bytes_per_sequence / layers : 0;
  const maxBytes = data ? Math.max(data.bytes_per_token * 131072 / layers, perLayer) : 1;
  const W = 600, H = 160, bw = W / layers;
  return (
    <Frame name="kv-growth" params={{ ...params, model, context_tokens: context }} error={error?.message}
      controls={<>
        <ModelPicker value={model} onChange={setModel} />
        <StepSlider label="Context" values={POW2(512, 131072)} value={context} onChange={setContext} format={(v) => `${fmtNum(v)} tokens`} />
      </>}
      legend={<Legend items={[{ concept: "kv", label: "K and V of every cached token, one bar per layer" }, { concept: "waste", label: "room up to 128k tokens" }]} />}
      numbers={data && <>
        {spec?.name ?? model} ({String(data.model.attention).toUpperCase()}{spec ? `, ${spec.num_kv_heads} KV heads for ${spec.num_attention_heads} query heads` : ""}
        {sliding ? `, ${sliding} sliding-window layers` : ""}): <strong>{fmtBytes(data.bytes_per_token)}</strong> per token;
        {" "}at {fmtNum(context)} tokens the cache holds <Value value={data.bytes_per_sequence} text={fmtBytes(data.bytes_per_sequence)} />
      </>}>
      <svg viewBox={`0 0 ${W} ${H + 20}`} role="img" aria-label={`KV cache per layer at ${context} tokens`} data-testid="diagram-svg">
        {Array.from({ length: layers }, (_, i) => {
          const h = (perLayer / maxBytes) * H;
          return (
            <g key={i}>
              <Block concept="waste" x={i * bw + 1} y={0} width={bw - 2} height={H} opacity={0.25} />
              <Block concept="kv" x={i * bw + 1} y={H - h} width={bw - 2} height={h} title={`layer ${i + 1}: ${fmtBytes(perLayer)}`} />
            </g>
          );
        })}
        <text x={0} y={H + 14}>layer 1</text>
        <text x={W} y={H + 14} textAnchor="end">layer {layers}</text>
      </svg>
    </Frame>
  );
}

const SEQUENCES = [100, 37, 260];
const SEQ_SHADES = [1, 0.72, 0.45];

export function PagedBlocks({ params }: { params: Params }) {
  const [grow, setGrow] = useState(0);
  const blockSize = Number(params.block_size);
  const lengths = SEQUENCES.map((n, i) => (i === 0 ? n + grow : n));
  const { data, error } = useSimulation("paged-kv", { model: params.model, kv_dtype: params.kv_dtype, block_size: blockSize, sequence_lengths: lengths, max_model_len: 1024 });
  // Physical blocks handed out as the sequences grow together, so a sequence's blocks are not contiguous.
  const owners: { seq: number; fill: number; logical: number }[] = [];
  if (data) {
    const counts = data.sequences.map(() => 0);
    for (let round = 0; owners.length < data.total_blocks; round++) {
      data.sequences.forEach((s, i) => {
        if (round < s.blocks) {
          owners.push({ seq: i, logical: counts[i]++, fill: round === s.blocks - 1 ? s.last_block_tokens / blockSize : 1 });
        }
      });
    }
  }
  const cols = 16, cell = 600 / cols, rows = Math.max(3, Math.ceil(owners.length / cols));
  return (
    <Frame name="paged-blocks" params={params} error={error?.message}
      controls={<Slider label="Sequence A grows" value={grow} min={0} max={400} step={8} onChange={setGrow} format={(v) => `+${v} tokens`} />}
      legend={<Legend items={[{ concept: "kv", label: "KV block of sequence A, B, C (darker to lighter)" }, { concept: "waste", label: "empty slots in a last block (waste)" }]} />}
      numbers={data && <>
        {data.total_blocks} blocks of {blockSize} tokens for {fmtNum(data.used_tokens)} tokens; paged waste{" "}
        <Value value={data.paged_waste_fraction} text={`${(data.paged_waste_fraction * 100).toFixed(1)}%`} /> against{" "}
        {(data.contiguous_waste_fraction * 100).toFixed(1)}% reserving max_model_len contiguously
      </>}>
      <svg viewBox={`0 0 600 ${rows * cell + 70}`} role="img" aria-label="Physical KV blocks by sequence" data-testid="diagram-svg">
        {owners.map((o, i) => {
          const x = (i % cols) * cell, y = Math.floor(i / cols) * cell;
          return (
            <g key={i}>
              <Block concept="waste" x={x + 1} y={y + 1} width={cell - 2} height={cell - 2} opacity={0.35} />
              <Block concept="kv" opacity={SEQ_SHADES[o.seq]} x={x + 1} y={y + 1} width={(cell - 2) * o.fill} height={cell - 2}
                title={`physical block ${i}: sequence ${"ABC"[o.seq]}, logical block ${o.logical}`} />
              <text x={x + 4} y={y + 13}>{i}</text>
            </g>
          );
        })}
        {data && data.sequences.map((_, s) => (
          <text key={s} x={0} y={rows * cell + 18 + s * 18}>
            Block table {"ABC"[s]}: [{owners.map((o, i) => (o.seq === s ? i : -1)).filter((i) => i >= 0).slice(0, 18).join(", ")}
            {data.sequences[s].blocks > 18 ? ", …" : ""}]
          </text>
        ))}
      </svg>
    </Frame>
  );
}

export function MemoryBreakdown({ params }: { params: Params }) {
  const [batch, setBatch] = useState(Number(params.batch_size));
  const { data, error } = useSimulation("fit", {
    model: params.model, gpu: params.gpu, weight_dtype: params.weight_dtype, kv_dtype: params.weight_dtype === "fp8" ? "fp8" : "bf16",
    context_tokens: params.context_tokens, batch_size: batch, tensor_parallel: params.tensor_parallel,
  });
  const parts = data ? [
    { concept: "weights" as const, label: "weights", value: data.per_gpu_bytes.weights },
    { concept: "kv" as const, label: "KV cache", value: data.per_gpu_bytes.kv_cache },
    { concept: "activations" as const, label: "activations", value: data.per_gpu_bytes.activations },
    { concept: "overhead" as const, label: "runtime overhead", value: data.per_gpu_bytes.runtime_overhead },
  ] : [];
  const capacity = data?.memory_bytes ?? 1;
  const total = parts.reduce((a, p) => a + p.value, 0);
  const scaleMax = Math.max(capacity, total);
  let x = 0;
  return (
    <Frame name="memory-breakdown" params={{ ...params, batch_size: batch }} error={error?.message}
      controls={<StepSlider label="Batch" values={POW2(1, 512)} value={batch} onChange={setBatch} format={(v) => `${v} sequences`} />}
      legend={<Legend items={["weights", "kv", "activations", "overhead", { concept: "waste", label: "free" }]} />}
      numbers={data && <>
        {data.gpu.name}: <Value value={data.total_bytes_per_gpu} text={fmtBytes(data.total_bytes_per_gpu)} /> used of {fmtBytes(data.budget_bytes)} budget
        ({fmtBytes(capacity)} HBM) — {data.fits ? "fits" : "does not fit"}; at most {fmtNum(data.max_concurrent_sequences)} sequences of this length
      </>}>
      <svg viewBox="0 0 600 90" role="img" aria-label="GPU memory breakdown" data-testid="diagram-svg">
        <Block concept="waste" x={0} y={10} width={(capacity / scaleMax) * 600} height={44} opacity={0.4} />
        {parts.map((p) => {
          const w = (p.value / scaleMax) * 600;
          const el = <Block key={p.label} concept={p.concept} x={x} y={10} width={w} height={44} title={`${p.label}: ${fmtBytes(p.value)}`} />;
          x += w;
          return el;
        })}
        {data && <line x1={(data.budget_bytes / scaleMax) * 600} x2={(data.budget_bytes / scaleMax) * 600} y1={2} y2={62} stroke="var(--danger)" strokeWidth={2} />}
        {data && <text x={(data.budget_bytes / scaleMax) * 600} y={78} textAnchor="end">budget (gpu_memory_utilization)</text>}
      </svg>
    </Frame>
  );
}

export function PrefixHashChain({ params }: { params: Params }) {
  const [system, setSystem] = useState(Number(params.system_tokens));
  const blockSize = Number(params.block_size);
  const { data, error } = useSimulation("prefix-cache", {
    synthetic: { num_requests: 4, num_system_prompts: 1, system_tokens: system, user_tokens: Number(params.user_tokens), seed: 0 },
    block_size: blockSize, capacity_blocks: 1000,
  });
  const shown = data?.prompts.slice(0, 4) ?? [];
  const maxBlocks = Math.max(1, ...shown.map((p) => p.blocks));
  const cw = Math.min(60, 560 / maxBlocks);
  return (
    <Frame name="prefix-hash-chain" params={{ ...params, system_tokens: system }} error={error?.message}
      controls={<Slider label="Shared system prompt" value={system} min={0} max={512} step={16} onChange={setSystem} format={(v) => `${v} tokens`} />}
      legend={<Legend items={[{ concept: "kv", label: "cache hit: block reused" }, { concept: "prefill", label: "miss: block computed in prefill" }]} />}
      numbers={data && <>
        hit rate <Value value={data.hit_rate} text={`${(data.hit_rate * 100).toFixed(1)}%`} /> of blocks over {data.num_prompts} requests
        ({fmtNum(data.hit_blocks)} of {fmtNum(data.lookup_blocks)} blocks looked up)
      </>}>
      <svg viewBox={`0 0 600 ${shown.length * 44 + 10}`} role="img" aria-label="Block hash chains per request" data-testid="diagram-svg">
        {shown.map((p, r) => (
          <g key={r}>
            <text x={0} y={r * 44 + 24}>req {r + 1}</text>
            {p.hashes.map((h, b) => (
              <g key={b}>
                {b > 0 && <line x1={40 + b * cw - 4} x2={40 + b * cw} y1={r * 44 + 20} y2={r * 44 + 20} className="d-axis" />}
                <Block concept={b < p.hit_blocks ? "kv" : "prefill"} x={40 + b * cw} y={r * 44 + 6} width={cw - 4} height={28}
                  title={`block ${b}: hash ${h} (chains block ${b - 1}) — ${b < p.hit_blocks ? "hit" : "miss"}`} />
                {cw > 40 && <text x={40 + b * cw + 2} y={r * 44 + 24} style={{ fontSize: 8 }}>{h.slice(0, 6)}</text>}
              </g>
            ))}
          </g>
        ))}
      </svg>
    </Frame>
  );
}
