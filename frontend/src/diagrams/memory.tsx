// Memory diagrams: KV growth per layer, paged blocks, the memory breakdown, the prefix-cache hash chain.
import { useState } from "react";
import { fmtBytes, fmtNum, useCatalog } from "../areas/lab/lib";
import { Block, Frame, Legend, PlayerControls, POW2, Slider, StepSlider, useAnswer, useHeld, useTour, type Params } from "./kit";

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
  const steps = [Number(params.context_tokens), 1024, 32768, 131072];
  const tour = useTour(steps);
  const context = tour.value;
  const { models } = useCatalog();
  const spec = models.find((m) => m.slug === model);
  const body = (c: number) => ({ model, kv_dtype: params.kv_dtype, context_tokens: c, batch_size: 1 });
  const { data, fresh, error } = useAnswer("kv-cache", body(context), steps.map(body));
  const layers = spec?.num_layers ?? 32;
  const sliding = data?.sliding_window_layers ?? 0;
  const perLayer = data ? data.bytes_per_sequence / layers : 0;
  const maxBytes = data ? Math.max(data.bytes_per_token * 131072 / layers, perLayer) : 1;
  const W = 600, H = 160, bw = W / layers;
  const name = spec?.name ?? model;
  const holds = data ? `${fmtBytes(data.bytes_per_sequence)} for one sequence, ${fmtBytes(perLayer)} in each of ${layers} layers` : "";
  const said = !data || !fresh ? null : [
    `${name} keeps ${fmtBytes(data.bytes_per_token)} of K and V per token; at this chapter's ${fmtNum(context)} tokens that is ${holds}.`,
    `At ${fmtNum(context)} tokens: ${holds}.`,
    `At ${fmtNum(context)} tokens, 32 times the 1k context: ${holds}; the cache grows in step with the context.`,
    `At ${fmtNum(context)} tokens: ${holds}, and every concurrent sequence needs its own.`,
  ][tour.index] ?? `At your ${fmtNum(context)} tokens: ${holds}.`;
  const narration = useHeld(said);
  return (
    <Frame name="kv-growth" params={{ ...params, model, context_tokens: context }} error={error?.message}
      controls={<>
        <ModelPicker value={model} onChange={(m) => { tour.take(context); setModel(m); }} />
        <StepSlider label="Context" values={POW2(512, 131072)} value={context} onChange={tour.take} format={(v) => `${fmtNum(v)} tokens`} />
      </>}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `${fmtNum(steps[i])} tokens`} />}
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
  const blockSize = Number(params.block_size);
  const steps = [0, blockSize * 2, 200, 400].map((g) => Math.min(400, Math.round(g / 8) * 8));
  const tour = useTour(steps);
  const grow = tour.value;
  const body = (g: number) => ({ model: params.model, kv_dtype: params.kv_dtype, block_size: blockSize,
    sequence_lengths: SEQUENCES.map((n, i) => (i === 0 ? n + g : n)), max_model_len: 1024 });
  const { data, fresh, error } = useAnswer("paged-kv", body(grow), steps.map(body));
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
  const tableA = owners.map((o, i) => (o.seq === 0 ? i : -1)).filter((i) => i >= 0);
  const a = data?.sequences[0];
  const waste = data ? `paged waste ${(data.paged_waste_fraction * 100).toFixed(1)}% against ${(data.contiguous_waste_fraction * 100).toFixed(1)}% reserving max_model_len contiguously` : "";
  const said = !data || !a || !fresh ? null : [
    `Three sequences of ${SEQUENCES.join(", ")} tokens take ${data.total_blocks} blocks of ${blockSize} tokens; only each last block is partly empty: ${waste}.`,
    `Sequence A grows by ${grow} tokens to ${a.blocks} blocks; its newest is physical block ${tableA[tableA.length - 1]}, wherever one was free, and A's block table records it.`,
    `A grows by ${grow} tokens: ${a.blocks} blocks, its last ${a.last_block_tokens} of ${blockSize} slots full; ${waste}.`,
    `A grows by ${grow} tokens: ${data.total_blocks} blocks hold ${fmtNum(data.used_tokens)} tokens and the waste is still under a block per sequence: ${waste}.`,
  ][tour.index] ?? `Sequence A grows by your ${grow} tokens: ${data.total_blocks} blocks; ${waste}.`;
  const narration = useHeld(said);
  return (
    <Frame name="paged-blocks" params={params} error={error?.message}
      controls={<Slider label="Sequence A grows" value={grow} min={0} max={400} step={8} onChange={tour.take} format={(v) => `+${v} tokens`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `A +${steps[i]} tokens`} />}
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
  const chapter = Number(params.batch_size);
  const body = (b: number) => ({
    model: params.model, gpu: params.gpu, weight_dtype: params.weight_dtype, kv_dtype: params.weight_dtype === "fp8" ? "fp8" : "bf16",
    context_tokens: params.context_tokens, batch_size: b, tensor_parallel: params.tensor_parallel,
  });
  const first = useAnswer("fit", body(chapter));
  // The first power of two past the most sequences that fit (the step where it stops fitting), at most 512.
  const most = first.data?.max_concurrent_sequences ?? chapter;
  const over = Math.min(512, 2 ** Math.ceil(Math.log2(Math.max(most + 1, 2))));
  // Each step: the batch, and how many of the parts (weights, KV, activations, overhead) it draws.
  const steps = [{ batch: chapter, shown: 4 }, { batch: chapter, shown: 1 }, { batch: chapter, shown: 2 }, { batch: chapter, shown: 4 }, { batch: over, shown: 4 }];
  const tour = useTour(steps);
  const batch = tour.value.batch;
  const { data, fresh, error } = useAnswer("fit", body(batch), steps.map((s) => body(s.batch)));
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
  const used = data ? `${fmtBytes(data.total_bytes_per_gpu)} of the ${fmtBytes(data.budget_bytes)} budget` : "";
  const pb = data?.per_gpu_bytes;
  const said = !data || !pb || !fresh ? null : [
    `This chapter's ${batch} sequences of ${fmtNum(Number(params.context_tokens))} tokens on ${data.gpu.name}: ${used}, ${data.fits ? "it fits" : "it does not fit"}.`,
    `First the weights: ${fmtBytes(pb.weights)} per GPU, fixed whatever the traffic.`,
    `Then the KV cache: ${fmtBytes(pb.kv_cache)} for ${batch} sequences of ${fmtNum(Number(params.context_tokens))} tokens, growing with both.`,
    `Then activations (${fmtBytes(pb.activations)}) and runtime overhead (${fmtBytes(pb.runtime_overhead)}): ${used}.`,
    `At ${batch} sequences the KV cache is ${fmtBytes(pb.kv_cache)}: ${used}, ${data.fits ? "it still fits" : "it does not fit"}; at most ${fmtNum(data.max_concurrent_sequences)} sequences of this length fit.`,
  ][tour.index] ?? `Your ${batch} sequences: ${used}, ${data.fits ? "it fits" : "it does not fit"}.`;
  const narration = useHeld(said);
  const shown = tour.value.shown;
  return (
    <Frame name="memory-breakdown" params={{ ...params, batch_size: batch }} error={error?.message}
      controls={<StepSlider label="Batch" values={POW2(1, 512)} value={batch} onChange={(b) => tour.take({ batch: b, shown: 4 })} format={(v) => `${v} sequences`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration}
        format={(i) => ["all", "weights", "+ KV cache", "+ activations", `${steps[i].batch} sequences`][i] ?? ""} />}
      legend={<Legend items={["weights", "kv", "activations", "overhead", { concept: "waste", label: "free" }]} />}
      numbers={data && <>
        {data.gpu.name}: <Value value={data.total_bytes_per_gpu} text={fmtBytes(data.total_bytes_per_gpu)} /> used of {fmtBytes(data.budget_bytes)} budget
        ({fmtBytes(capacity)} HBM) — {data.fits ? "fits" : "does not fit"}; at most {fmtNum(data.max_concurrent_sequences)} sequences of this length
      </>}>
      <svg viewBox="0 0 600 90" role="img" aria-label="GPU memory breakdown" data-testid="diagram-svg">
        <Block concept="waste" x={0} y={10} width={(capacity / scaleMax) * 600} height={44} opacity={0.4} />
        {parts.map((p, i) => {
          const w = (p.value / scaleMax) * 600;
          const el = <Block key={p.label} concept={p.concept} x={x} y={10} width={w} height={44} title={`${p.label}: ${fmtBytes(p.value)}`}
            opacity={i < shown ? 1 : 0.12} />;
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
  const steps = [Number(params.system_tokens), 0, 256, 512];
  const tour = useTour(steps);
  const system = tour.value;
  const blockSize = Number(params.block_size);
  const body = (sys: number) => ({
    synthetic: { num_requests: 4, num_system_prompts: 1, system_tokens: sys, user_tokens: Number(params.user_tokens), seed: 0 },
    block_size: blockSize, capacity_blocks: 1000,
  });
  const { data, fresh, error } = useAnswer("prefix-cache", body(system), steps.map(body));
  const shown = data?.prompts.slice(0, 4) ?? [];
  const maxBlocks = Math.max(1, ...shown.map((p) => p.blocks));
  const cw = Math.min(60, 560 / maxBlocks);
  const rate = data ? `${(data.hit_rate * 100).toFixed(1)}% of blocks hit (${fmtNum(data.hit_blocks)} of ${fmtNum(data.lookup_blocks)})` : "";
  const said = !data || !fresh ? null : [
    `${data.num_prompts} requests share a ${system}-token system prompt in blocks of ${blockSize}: ${rate}.`,
    `No shared system prompt: each request's first block hashes its own tokens, so ${rate}.`,
    `A ${system}-token system prompt fills ${Math.floor(system / blockSize)} full blocks with the same hashes in every request: ${rate}.`,
    `A ${system}-token system prompt: ${Math.floor(system / blockSize)} shared blocks, ${rate}; only the first request computes them.`,
  ][tour.index] ?? `Your ${system}-token system prompt: ${rate}.`;
  const narration = useHeld(said);
  return (
    <Frame name="prefix-hash-chain" params={{ ...params, system_tokens: system }} error={error?.message}
      controls={<Slider label="Shared system prompt" value={system} min={0} max={512} step={16} onChange={tour.take} format={(v) => `${v} tokens`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `${steps[i]} shared tokens`} />}
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
