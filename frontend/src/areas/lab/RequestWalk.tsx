// One request through one GPU: tokenize (gpt-tokenizer, cl100k_base, in the browser), prefill, then decode step by step.
import { useEffect, useState } from "react";
import { C, Legend } from "./charts";
import { DtypePicker, Explain, ModelGpuPicker, NumberInput, Stat } from "./form";
import { fmtBytes, fmtNum, fmtSeconds, modelChoice, num, prefersReducedMotion, useCatalog, useQueryState, useSimulation, useTokenizer, type SimulatorResults } from "./lib";
import { BASE_DEFAULTS, Tool } from "./panels";

const DEFAULT_PROMPT = "Explain in two sentences why the decode phase of an LLM is limited by memory bandwidth.";
/** Answers to stream, so the output side shows real tokens from the same tokenizer, never placeholders. */
export const SAMPLE_ANSWERS = [
  "Each decode step produces one token per sequence but must read every weight and the whole KV cache from HBM, so the GPU waits on memory rather than arithmetic. Batching more sequences shares that read.",
  "Because generating a token needs all previous tokens, decode runs one step per token, and each step is too small to keep the tensor cores busy.",
  "Memory bandwidth.",
];

export default function RequestWalkPanel() {
  const [v, set] = useQueryState({ ...BASE_DEFAULTS, batch_size: "1", prompt: DEFAULT_PROMPT, answer: SAMPLE_ANSWERS[0] });
  // Both texts are edited in local state (the URL follows): an emptied box stays empty instead of falling back to
  // the default, and the caret stays where you type.
  const [prompt, setPrompt] = useState(v.prompt ?? DEFAULT_PROMPT);
  const [answer, setAnswer] = useState(v.answer ?? SAMPLE_ANSWERS[0]);
  const enc = useTokenizer();
  const ids = enc ? enc.encode(prompt) : null;
  const answerIds = enc ? enc.encode(answer).slice(0, 256) : null;
  const { data, error } = useSimulation("request-walk", enc ? {
    ...modelChoice(v), gpu: v.gpu, weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype,
    output_tokens: Math.max(answerIds?.length ?? 1, 1), batch_size: num(v.batch_size, 0), tensor_parallel: num(v.tensor_parallel, 0),
    ...(ids && ids.length ? { tokens: ids.slice(0, 32768), tokenizer: "cl100k_base" } : { prompt: prompt || " " }),
  } : null);
  const pieces = enc && ids ? ids.map((id) => enc.decode([id])) : data?.token_pieces ?? [];
  const answerPieces = enc && answerIds && answerIds.length ? answerIds.map((id) => enc.decode([id])) : ["(empty answer: one token)"];
  return (
    <Tool title="Watch one request, token by token" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <DtypePicker values={v} set={set} />
      <NumberInput name="tensor_parallel" label="Tensor parallel (GPUs)" values={v} set={set} error={error} />
      <label className="lab-field"><span>Prompt</span>
        <textarea name="prompt" rows={4} value={prompt} onChange={(e) => { setPrompt(e.target.value); set({ prompt: e.target.value }); }} /></label>
      <label className="lab-field"><span>Answer to stream (≤ 256 tokens)</span>
        <textarea name="answer" rows={3} value={answer} onChange={(e) => { setAnswer(e.target.value); set({ answer: e.target.value }); }} /></label>
      <label className="lab-field"><span>Sample answers</span>
        <select value="" onChange={(e) => { const a = SAMPLE_ANSWERS[Number(e.target.value)]; if (a) { setAnswer(a); set({ answer: a }); } }} data-testid="walk-samples">
          <option value="">Pick a sample…</option>
          {SAMPLE_ANSWERS.map((a, i) => <option key={i} value={i}>{a.slice(0, 48)}…</option>)}
        </select>
      </label>
      <NumberInput name="batch_size" label="Other sequences in the batch" values={v} set={set} error={error} />
    </>}>
      {data && !data.feasible && (
        <p className="lab-warning" role="status" data-testid="walk-infeasible">
          {/^Does not fit/.test(data.reason ?? "") ? "" : "Does not fit: "}{data.reason}{data.min_tensor_parallel ? ` Use at least tensor parallel ${data.min_tensor_parallel}.` : ""}
          {data.fix_weight_dtype ? ` Or ${data.fix_weight_dtype} weights.` : ""} The times below are what it would take if it ran.
        </p>
      )}
      {data && <Walk data={data} pieces={pieces} answer={answerPieces} />}
      <Explain data={data} error={error} />
    </Tool>
  );
}

/** What happens at this point of the walk, in plain words. */
function narration(data: SimulatorResults["request-walk"], at: number, answer: string[], layers: number | null): string {
  const n = data.prompt_tokens;
  const layerText = layers ? `each of its ${layers} layers` : "every layer";
  if (at === 0) return `The API server has turned your prompt into ${n} tokens (${data.tokenizer}); the scheduler gives them a batch slot and KV blocks.`;
  const step = data.timeline[at - 1];
  const cache = fmtBytes(step.kv_bytes);
  if (at === 1) return `Prefill: one forward pass over all ${n} prompt tokens computes attention in ${layerText} and writes their keys and values (${cache} of KV cache). It is ${step.bound}-bound and ends by sampling the first token, “${answer[0]}”, after ${fmtSeconds(data.ttft_seconds)} (the TTFT).`;
  const weights = data.decode_weight_bytes_per_step;
  const share = weights / (weights + step.kv_bytes);
  return `Decode step ${at - 1}: to produce “${answer[at - 1] ?? ""}” the GPU reads all the weights (${fmtBytes(weights)}) and the whole cache so far (${cache}), ${(share * 100).toFixed(share > 0.99 ? 2 : 0)}% of the bytes being weights; the step is ${step.bound}-bound and takes ${fmtSeconds(step.end_seconds - step.start_seconds)}.`;
}

function Walk({ data, pieces, answer }: { data: SimulatorResults["request-walk"]; pieces: string[]; answer: string[] }) {
  const steps = data.timeline;
  const { models } = useCatalog();
  const layers = models.find((m) => m.slug === data.model.slug)?.num_layers ?? null;
  const reduced = prefersReducedMotion();
  // A fresh result (another batch size, a longer answer, or the answer to a request sent before the last edit) keeps
  // the learner where they are in the walk, clamped to the new length; only Reset goes back to the start.
  const [position, setPosition] = useState(0);
  const at = Math.min(position, steps.length);
  const [playing, setPlaying] = useState(false);
  useEffect(() => {
    if (!playing || reduced) return;
    if (at >= steps.length) { setPlaying(false); return; }
    const t = window.setTimeout(() => setPosition(at + 1), at === 0 ? 700 : 120);
    return () => window.clearTimeout(t);
  }, [playing, at, steps.length, reduced]);
  const current = steps[Math.max(at - 1, 0)];
  const kvMax = steps[steps.length - 1]?.kv_bytes ?? 1;
  const kvNow = at === 0 ? 0 : current.kv_bytes;
  return (
    <div className="lab-walk">
      <div className="lab-walk-controls" role="group" aria-label="Playback">
        {!reduced && <button type="button" onClick={() => { if (at >= steps.length) setPosition(0); setPlaying(!playing); }}>{playing ? "Pause" : "Play"}</button>}
        <button type="button" onClick={() => { setPlaying(false); setPosition(Math.max(at - 1, 0)); }}>Step back</button>
        <button type="button" onClick={() => { setPlaying(false); setPosition(Math.min(at + 1, steps.length)); }}>Step</button>
        <button type="button" onClick={() => { setPlaying(false); setPosition(0); }}>Reset</button>
        <span data-testid="walk-position">{at === 0 ? "before prefill" : at === 1 ? "prefill done (first token)" : `decode step ${at - 1} of ${steps.length - 1}`}</span>
      </div>
      <dl className="lab-stats">
        <Stat label="Tokenizer" value={data.tokenizer} />
        <Stat label="Prompt tokens" value={String(data.prompt_tokens)} testId="walk-prompt-tokens" />
        <Stat label="TTFT" value={fmtSeconds(data.ttft_seconds)} />
        <Stat label="Inter-token latency" value={fmtSeconds(data.itl_seconds)} />
        <Stat label="KV bytes per token" value={fmtBytes(data.kv_bytes_per_token)} />
        <Stat label="Clock" value={fmtSeconds(at === 0 ? 0 : current.end_seconds)} />
      </dl>
      <div className="lab-tokens" aria-label="Tokens">
        {pieces.map((p, i) => (
          <span key={`p${i}`} className="lab-chip" style={{ borderColor: at >= 1 ? C.prefill : "var(--border)" }}>{p.replace(/ /g, "·") || "∅"}</span>
        ))}
        {answer.slice(0, at).map((p, i) => (
          <span key={`d${i}`} className="lab-chip lab-chip-new" style={{ borderColor: i === 0 ? C.prefill : C.decode }}
            data-testid="walk-output-token">{p.replace(/ /g, "·") || "∅"}</span>
        ))}
      </div>
      <p className="lab-note" aria-live="polite" data-testid="walk-narration">{narration(data, at, answer, layers)}</p>
      <Meters data={data} step={at === 0 ? null : current} />
      {at >= 2 && (
        <figure className="lab-chart">
          <figcaption>Decode step {at - 1}: bytes read</figcaption>
          <svg viewBox="0 0 600 24" role="img" aria-label="Bytes read by this decode step: weights against KV cache">
            <rect x={0} y={2} width={600 * data.decode_weight_bytes_per_step / (data.decode_weight_bytes_per_step + current.kv_bytes)} height={20} style={{ fill: C.weights }} />
            <rect x={600 * data.decode_weight_bytes_per_step / (data.decode_weight_bytes_per_step + current.kv_bytes)} y={2}
              width={600 * current.kv_bytes / (data.decode_weight_bytes_per_step + current.kv_bytes)} height={20} style={{ fill: C.kv }} />
          </svg>
        </figure>
      )}
      <figure className="lab-chart">
        <figcaption>KV cache of this request: {fmtBytes(kvNow)}{layers ? `, ${fmtBytes(kvNow / layers)} in each of ${layers} layers` : ""}</figcaption>
        {layers && (
          <svg viewBox={`0 0 600 ${Math.min(layers, 40) * 4}`} role="img" aria-label={`KV cache filling ${layers} layers`} data-testid="walk-layers">
            {Array.from({ length: Math.min(layers, 40) }, (_, l) => (
              <rect key={l} x={0} y={l * 4} width={(kvNow / kvMax) * 600} height={3} style={{ fill: C.kv }} className="lab-grow" />
            ))}
          </svg>
        )}
        <svg viewBox="0 0 600 24" role="img" aria-label="KV cache growth">
          <rect x={0} y={2} width={600} height={20} style={{ fill: "var(--bg-soft)" }} />
          <rect x={0} y={2} width={(kvNow / kvMax) * 600} height={20} style={{ fill: C.kv }} className="lab-grow" />
        </svg>
        <Legend items={[{ label: "prompt token (prefill: compute-bound)", color: C.prefill }, { label: "generated token (decode: memory-bound)", color: C.decode }, { label: "KV cache", color: C.kv }, { label: "weights", color: C.weights }]} />
      </figure>
    </div>
  );
}

/** How hard this step drives the GPU: achieved FLOP/s against the peak and bytes/s against HBM bandwidth (the API's
 * per-step figures from the step-time model). Prefill fills the compute meter, decode the bandwidth meter. */
function Meters({ data, step }: { data: SimulatorResults["request-walk"]; step: SimulatorResults["request-walk"]["timeline"][number] | null }) {
  const meters = [
    { key: "compute", label: "GPU compute", color: C.compute, share: step?.compute_utilization ?? 0,
      of: `${fmtNum((step?.compute_utilization ?? 0) * data.peak_flops_per_s / 1e12)} of ${fmtNum(data.peak_flops_per_s / 1e12)} TFLOP/s` },
    { key: "memory", label: "Memory bandwidth", color: C.memory, share: step?.bandwidth_utilization ?? 0,
      of: `${fmtBytes((step?.bandwidth_utilization ?? 0) * data.peak_bandwidth_bytes_per_s)}/s of ${fmtBytes(data.peak_bandwidth_bytes_per_s)}/s` },
  ];
  return (
    <figure className="lab-chart lab-meters" data-testid="walk-meters">
      <figcaption>{step ? `${step.kind === "prefill" ? "Prefill" : `Decode step ${step.index - 1}`}: how busy the GPU is (achieved ÷ peak)` : "GPU meters: idle before prefill"}</figcaption>
      {meters.map((m) => (
        <div key={m.key} className="lab-meter" data-testid={`walk-meter-${m.key}`} data-value={m.share.toFixed(4)}>
          <span className="lab-meter-label">{m.label}</span>
          <span className="lab-meter-track" role="meter" aria-label={m.label} aria-valuemin={0} aria-valuemax={100}
            aria-valuenow={Math.round(m.share * 100)} aria-valuetext={`${(m.share * 100).toFixed(1)}%: ${m.of}`}>
            <span className="lab-meter-fill lab-grow" style={{ width: `${Math.min(m.share, 1) * 100}%`, background: m.color }} />
          </span>
          <span className="lab-meter-value"><strong>{(m.share * 100).toFixed(m.share < 0.1 ? 1 : 0)}%</strong> <small>{m.of}</small></span>
        </div>
      ))}
    </figure>
  );
}

export const PANELS = { "request-walk": RequestWalkPanel };
