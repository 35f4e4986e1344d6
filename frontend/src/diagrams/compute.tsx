// Time diagrams: prefill then decode with meters, the roofline, throughput against latency, a request's journey.
import { useState } from "react";
import { fmtBytes, fmtNum, fmtSeconds, useSimulation } from "../areas/lab/lib";
import { Block, color, Frame, Legend, linear, logScale, PlayerControls, POW2, StepSlider, useAnswer, useHeld, usePlayer, useTour, type Params } from "./kit";
import { Value } from "./memory";

const DECODE_STEPS = 16;

function Meter({ label, value, peak, y, unit, concept }: { label: string; value: number; peak: number; y: number; unit: string; concept: "compute" | "memory" }) {
  const share = Math.min(1, value / (peak || 1));
  return (
    <g data-testid={`meter-${unit}`}>
      <text x={0} y={y + 12}>{label}</text>
      <rect x={150} y={y} width={400} height={16} fill="none" stroke="var(--fg-soft)" />
      <rect className="d-anim" x={150} y={y} width={400 * share} height={16} fill={color(concept)} />
      <text x={555} y={y + 12}>{(share * 100).toFixed(0)}%</text>
    </g>
  );
}

export function PrefillDecode({ params }: { params: Params }) {
  const [prompt, setPrompt] = useState(Number(params.context_tokens));
  const base = { model: params.model, gpu: params.gpu, batch_size: params.batch_size };
  const prefill = useSimulation("step-time", { ...base, phase: "prefill", context_tokens: prompt });
  const decode = useSimulation("step-time", { ...base, phase: "decode", context_tokens: prompt });
  const player = usePlayer(DECODE_STEPS + 2, 180);
  const p = prefill.data, d = decode.data;
  const total = p && d ? p.step_seconds + DECODE_STEPS * d.step_seconds : 1;
  const x = linear(0, total, 0, 600);
  const current = player.step === 0 ? p : d;
  const last = DECODE_STEPS + 1;
  const narration = !p || !d ? "" : player.step === 0
    ? `Prefill: all ${fmtNum(prompt)} prompt tokens go through the model in one ${p.bound}-bound step of ${fmtSeconds(p.step_seconds)}; it ends with the first token.`
    : player.step >= last
      ? `Done: ${DECODE_STEPS} tokens after a ${fmtSeconds(p.step_seconds)} prefill, one every ${fmtSeconds(d.step_seconds)}; decode is most of the time.`
      : `Decode step ${player.step}: one new token, but the step re-reads ${fmtBytes(d.bytes)} of weights and KV cache (${d.bound}-bound, ${fmtSeconds(d.step_seconds)}).`;
  return (
    <Frame name="prefill-decode" params={{ ...params, context_tokens: prompt }} error={(prefill.error ?? decode.error)?.message}
      controls={<StepSlider label="Prompt" values={POW2(128, 32768)} value={prompt} onChange={setPrompt} format={(v) => `${fmtNum(v)} tokens`} />}
      player={<PlayerControls player={player} narration={narration}
        format={(s) => (s === 0 ? "prefill" : s >= last ? "done" : `decode ${s}`)} />}
      legend={<Legend items={[{ concept: "prefill", label: "prefill step (all prompt tokens)" }, { concept: "decode", label: "decode step (one token each)" }]} />}
      numbers={p && d && <>
        prefill (TTFT) <Value value={p.step_seconds} text={fmtSeconds(p.step_seconds)} />, {p.bound}-bound; each decode step{" "}
        <strong>{fmtSeconds(d.step_seconds)}</strong>, {d.bound}-bound ({fmtBytes(d.bytes)} read per step)
      </>}>
      <svg viewBox="0 0 600 140" role="img" aria-label="Timeline of one prefill step then decode steps" data-testid="diagram-svg">
        {p && d && <>
          <Block concept="prefill" x={0} y={4} width={x(p.step_seconds)} height={36} title={`prefill ${fmtSeconds(p.step_seconds)}`}
            opacity={player.step >= 0 ? 1 : 0.3} />
          {Array.from({ length: DECODE_STEPS }, (_, i) => (
            <Block key={i} concept="decode" x={x(p.step_seconds + i * d.step_seconds) + 1} y={4} width={x(d.step_seconds) - 1} height={36}
              opacity={player.step >= i + 1 ? 1 : 0.25} title={`decode step ${i + 1}: ${fmtSeconds(d.step_seconds)}`} />
          ))}
          <text x={0} y={56}>{player.step === 0 ? "now: prefill" : `now: decode step ${Math.min(player.step, DECODE_STEPS)}`}</text>
          {current && <>
            <Meter label="FLOP/s vs peak" value={current.flops / current.step_seconds} peak={current.peak_flops_per_s} y={70} unit="flops" concept="compute" />
            <Meter label="bytes/s vs HBM peak" value={current.bytes / current.step_seconds} peak={current.gpu.hbm_bandwidth_bytes_per_s} y={100} unit="bytes" concept="memory" />
          </>}
        </>}
      </svg>
    </Frame>
  );
}

/** The power of two nearest the batch where a decode step's intensity reaches the ridge, estimated from one step
 * (intensity grows about in proportion to the batch while the weights dominate the bytes). */
function ridgeBatch(batch: number, intensity: number, ridge: number): number {
  const estimate = batch * ridge / Math.max(intensity, 1e-9);
  return Math.min(1024, Math.max(2, 2 ** Math.round(Math.log2(Math.max(estimate, 1)))));
}

export function Roofline({ params }: { params: Params }) {
  const chapter = Number(params.batch_size);
  const body = (batch: number) => ({ model: params.model, gpu: params.gpu, phase: params.phase, batch_size: batch, context_tokens: params.context_tokens });
  const first = useAnswer("step-time", body(chapter));
  const f = first.data;
  const ridgeAt = f ? ridgeBatch(chapter, f.arithmetic_intensity_flops_per_byte, f.peak_flops_per_s / f.gpu.hbm_bandwidth_bytes_per_s) : 256;
  const steps = [chapter, 1, 64, ridgeAt, 1024];
  const tour = useTour(steps);
  const batch = tour.value;
  const { data, fresh, error } = useAnswer("step-time", body(batch), steps.map(body));
  const W = 600, H = 220, L = 50;
  const x = logScale(0.5, 1e4, L, W), y = logScale(1e11, 3e15, H, 10);
  const peak = data?.peak_flops_per_s ?? 1e15, bw = data?.gpu.hbm_bandwidth_bytes_per_s ?? 3e12;
  const ridge = peak / bw;
  const ai = data?.arithmetic_intensity_flops_per_byte ?? 1;
  const attained = data ? data.flops / data.step_seconds : 0;
  const where = data ? `${fmtNum(ai)} FLOP/B, ${ai < ridge ? "below" : "above"} the ridge at ${fmtNum(ridge)} FLOP/B: ${data.bound}-bound at ${fmtNum(attained / 1e12)} TFLOP/s, a ${fmtSeconds(data.step_seconds)} step` : "";
  const said = !data || !fresh ? null : [
    `This chapter's ${params.phase} step at batch ${batch}: ${where}.`,
    `Batch 1: every byte of weights read from memory serves one token, ${where}.`,
    `Batch 64: the same weights serve 64 tokens per read, ${where}.`,
    `Batch ${batch}, the nearest to the ridge (peak ${fmtNum(peak / 1e12)} TFLOP/s ÷ ${fmtBytes(bw)}/s): ${where}.`,
    `Batch 1024: ${where}; past the ridge more batch no longer buys speed per token.`,
  ][tour.index] ?? `Your batch ${batch}: ${where}.`;
  const narration = useHeld(said);
  return (
    <Frame name="roofline" params={{ ...params, batch_size: batch }} error={error?.message}
      controls={<StepSlider label="Batch" values={POW2(1, 1024)} value={batch} onChange={tour.take} format={(v) => `${v}`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(s) => `batch ${steps[s]}`} />}
      legend={<Legend items={[{ concept: "memory", label: "memory roof: bandwidth × intensity" }, { concept: "compute", label: "compute roof: peak FLOP/s" }, { concept: params.phase === "prefill" ? "prefill" : "decode", label: `this ${params.phase} step` }]} />}
      numbers={data && <>
        intensity <Value value={ai} text={`${fmtNum(ai)} FLOP/B`} /> against the ridge at {fmtNum(ridge)} FLOP/B: {data.bound}-bound,
        {" "}{fmtNum(attained / 1e12)} TFLOP/s achieved, step {fmtSeconds(data.step_seconds)}
      </>}>
      <svg viewBox={`0 0 ${W} ${H + 30}`} role="img" aria-label="Roofline with the current step" data-testid="diagram-svg">
        <line x1={L} x2={W} y1={H} y2={H} className="d-axis" /><line x1={L} x2={L} y1={0} y2={H} className="d-axis" />
        <text x={W} y={H + 24} textAnchor="end">arithmetic intensity (FLOP/byte, log)</text>
        <text x={0} y={12}>FLOP/s</text>
        <line x1={x(0.5)} y1={y(bw * 0.5)} x2={x(ridge)} y2={y(peak)} stroke={color("memory")} strokeWidth={3} />
        <line x1={x(ridge)} y1={y(peak)} x2={x(1e4)} y2={y(peak)} stroke={color("compute")} strokeWidth={3} strokeDasharray="8 3" />
        {tour.index === 3 && <line x1={x(ridge)} x2={x(ridge)} y1={y(peak)} y2={H} className="d-axis" strokeDasharray="3 3" data-testid="roofline-ridge" />}
        {data && <circle className="d-anim" cx={x(ai)} cy={y(Math.max(attained, 1.1e11))} r={8}
          fill={color(params.phase === "prefill" ? "prefill" : "decode")} stroke="var(--fg)" data-testid="roofline-point">
          <title>{`${fmtNum(ai)} FLOP/B, ${fmtNum(attained / 1e12)} TFLOP/s`}</title></circle>}
      </svg>
    </Frame>
  );
}

export function ThroughputLatency({ params }: { params: Params }) {
  const { data, error } = useSimulation("throughput-latency", {
    model: params.model, gpu: params.gpu, prompt_tokens: params.context_tokens, output_tokens: params.output_tokens,
  });
  const points = data?.points ?? [];
  const lastPoint = Math.max(points.length - 1, 0);
  // The tour: the chapter's point, batch 1, the knee (the point where throughput has reached half its best), the end.
  const best = Math.max(1, ...points.map((p) => p.tokens_per_s));
  const knee = Math.max(0, points.findIndex((p) => p.tokens_per_s >= best / 2));
  const steps = [Math.min(4, lastPoint), 0, knee, lastPoint];
  const tour = useTour(steps);
  const index = tour.value;
  const point = points[Math.min(index, lastPoint)];
  const W = 600, H = 200, L = 50;
  const maxT = Math.max(1, ...points.map((p) => p.tokens_per_s)), maxL = Math.max(1e-3, ...points.map((p) => p.tpot_seconds));
  const x = linear(0, maxL * 1.05, L, W), y = linear(0, maxT * 1.05, H, 10);
  const at = point ? `batch ${point.batch_size}: ${fmtNum(point.tokens_per_s)} tokens/s at ${fmtSeconds(point.tpot_seconds)} per output token (${point.bound}-bound)` : "";
  const said = !point ? null : [
    `This chapter's point, ${at}.`,
    `One request alone, ${at}: the GPU re-reads the weights for a single token each step.`,
    `By ${at}, throughput has reached half its best of ${fmtNum(best)} tokens/s; each token waits a little longer.`,
    `At the largest batch, ${at}: the last gains in throughput cost the most latency.`,
  ][tour.index] ?? `Your point, ${at}.`;
  const narration = useHeld(said);
  return (
    <Frame name="throughput-latency" params={params} error={error?.message}
      controls={<label>Batch
        <input type="range" min={0} max={lastPoint} value={Math.min(index, lastPoint)}
          onChange={(e) => tour.take(Number(e.target.value))} data-testid="diagram-slider" aria-valuetext={`batch ${point?.batch_size ?? ""}`} />
        <output>{point?.batch_size}</output></label>}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(s) => `batch ${points[steps[s]]?.batch_size ?? ""}`} />}
      legend={<Legend items={[{ concept: "decode", label: "throughput at each batch size (decode)" }]} />}
      numbers={point && <>
        batch {point.batch_size}: <Value value={point.tokens_per_s} text={`${fmtNum(point.tokens_per_s)} tokens/s`} /> at{" "}
        {fmtSeconds(point.tpot_seconds)} per output token ({point.bound}-bound)
      </>}>
      <svg viewBox={`0 0 ${W} ${H + 30}`} role="img" aria-label="Throughput against time per output token" data-testid="diagram-svg">
        <line x1={L} x2={W} y1={H} y2={H} className="d-axis" /><line x1={L} x2={L} y1={0} y2={H} className="d-axis" />
        <text x={W} y={H + 24} textAnchor="end">time per output token →</text><text x={0} y={12}>tokens/s</text>
        <polyline fill="none" stroke={color("decode")} strokeWidth={2.5} points={points.map((p) => `${x(p.tpot_seconds)},${y(p.tokens_per_s)}`).join(" ")} />
        {points.map((p, i) => <circle key={i} cx={x(p.tpot_seconds)} cy={y(p.tokens_per_s)} r={i === index ? 8 : 3}
          fill={color("decode")} stroke={i === index ? "var(--fg)" : "none"} className="d-anim" />)}
      </svg>
    </Frame>
  );
}

const STAGES = ["client", "gateway", "router", "scheduler", "GPU", "stream back"];

export function RequestLifecycle({ params }: { params: Params }) {
  const prompt = "Why is my pod stuck in Pending? ".repeat(Math.max(1, Math.round(Number(params.context_tokens) / 8)));
  const { data, error } = useSimulation("request-walk", {
    model: params.model, gpu: params.gpu, prompt, output_tokens: Math.min(256, Number(params.output_tokens)),
  });
  const player = usePlayer(STAGES.length, 900);
  const cw = 600 / STAGES.length;
  const narration = [
    "The client sends the prompt as text over HTTP.",
    "The gateway authenticates it and applies rate limits.",
    "The router picks a replica (by load or by a cached prefix).",
    "The engine's scheduler queues it and admits it when KV blocks are free.",
    data ? `On the GPU, prefill turns ${data.prompt_tokens} prompt tokens into the first token in ${fmtSeconds(data.ttft_seconds)}.` : "On the GPU, prefill computes the first token.",
    data ? `Decode streams the rest back, one token every ${fmtSeconds(data.itl_seconds)}.` : "Decode streams the rest back one token at a time.",
  ][player.step];
  return (
    <Frame name="request-lifecycle" params={params} error={error?.message}
      controls={<>
        {STAGES.map((s, i) => <button key={s} type="button" onClick={() => player.seek(i)} aria-pressed={player.step === i}>{s}</button>)}
      </>}
      player={<PlayerControls player={player} label="Send the request" narration={narration} scrubLabel="Stage" format={(s) => STAGES[s]} />}
      legend={<Legend items={[{ concept: "communication", label: "network hop (not modelled)" }, { concept: "prefill", label: "prefill: first token" }, { concept: "decode", label: "decode: streamed tokens" }]} />}
      numbers={data && <>
        {data.prompt_tokens} prompt tokens: TTFT <Value value={data.ttft_seconds} text={fmtSeconds(data.ttft_seconds)} />, then{" "}
        {data.decode_steps} decode steps of {fmtSeconds(data.itl_seconds)}; total {fmtSeconds(data.total_seconds)} on the GPU
      </>}>
      <svg viewBox="0 0 600 90" role="img" aria-label={`Request at stage ${STAGES[player.step]}`} data-testid="diagram-svg">
        {STAGES.map((s, i) => (
          <g key={s}>
            <Block concept={i === 4 ? "prefill" : i === 5 ? "decode" : "communication"} x={i * cw + 4} y={10} width={cw - 8} height={44}
              opacity={i <= player.step ? 1 : 0.3} title={s} />
            <text x={i * cw + cw / 2} y={72} textAnchor="middle">{s}</text>
            {i > 0 && <text x={i * cw} y={36} textAnchor="middle">→</text>}
          </g>
        ))}
        <circle className="d-anim" cx={player.step * cw + cw / 2} cy={32} r={7} fill="var(--fg)" data-testid="request-dot" />
      </svg>
    </Frame>
  );
}
