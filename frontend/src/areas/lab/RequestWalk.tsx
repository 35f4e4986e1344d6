// One request through one GPU: tokenize (gpt-tokenizer, cl100k_base, in the browser), prefill, then decode step by step.
import { useEffect, useState } from "react";
import { C, Legend } from "./charts";
import { DtypePicker, Explain, ModelGpuPicker, NumberInput, Stat } from "./form";
import { fmtBytes, fmtSeconds, modelChoice, num, prefersReducedMotion, useQueryState, useSimulation, useTokenizer, type SimulatorResults } from "./lib";
import { BASE_DEFAULTS, Tool } from "./panels";

const DEFAULT_PROMPT = "Explain in two sentences why the decode phase of an LLM is limited by memory bandwidth.";

export default function RequestWalkPanel() {
  const [v, set] = useQueryState({ ...BASE_DEFAULTS, batch_size: "1", output_tokens: "24", prompt: DEFAULT_PROMPT });
  // The prompt is edited in local state (the URL follows): an emptied box stays empty instead of falling back to the
  // default, and the caret stays where you type.
  const [prompt, setPrompt] = useState(v.prompt ?? DEFAULT_PROMPT);
  const enc = useTokenizer();
  const ids = enc ? enc.encode(prompt) : null;
  const { data, error } = useSimulation("request-walk", {
    ...modelChoice(v), gpu: v.gpu, weight_dtype: v.weight_dtype, kv_dtype: v.kv_dtype, output_tokens: num(v.output_tokens, 0),
    batch_size: num(v.batch_size, 0), tensor_parallel: num(v.tensor_parallel, 0),
    ...(ids && ids.length ? { tokens: ids.slice(0, 32768), tokenizer: "cl100k_base" } : { prompt: prompt || " " }),
  });
  const pieces = enc && ids ? ids.map((id) => enc.decode([id])) : data?.token_pieces ?? [];
  return (
    <Tool title="Walk one request" form={<>
      <ModelGpuPicker values={v} set={set} error={error} />
      <DtypePicker values={v} set={set} />
      <label className="lab-field"><span>Prompt</span>
        <textarea name="prompt" rows={4} value={prompt} onChange={(e) => { setPrompt(e.target.value); set({ prompt: e.target.value }); }} /></label>
      <NumberInput name="output_tokens" label="Output tokens (≤ 256)" values={v} set={set} max={256} error={error} />
      <NumberInput name="batch_size" label="Other sequences in the batch" values={v} set={set} error={error} />
    </>}>
      {data && <Walk data={data} pieces={pieces} />}
      <Explain data={data} error={error} />
    </Tool>
  );
}

function Walk({ data, pieces }: { data: SimulatorResults["request-walk"]; pieces: string[] }) {
  const steps = data.timeline;
  const reduced = prefersReducedMotion();
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(false);
  useEffect(() => { setAt(0); setPlaying(false); }, [data]);
  useEffect(() => {
    if (!playing || reduced) return;
    if (at >= steps.length) { setPlaying(false); return; }
    const t = window.setTimeout(() => setAt((a) => a + 1), at === 0 ? 700 : 120);
    return () => window.clearTimeout(t);
  }, [playing, at, steps.length, reduced]);
  const current = steps[Math.max(at - 1, 0)];
  const kvMax = steps[steps.length - 1]?.kv_bytes ?? 1;
  const kvNow = at === 0 ? 0 : current.kv_bytes;
  const decoded = Math.max(at - 1, 0);
  return (
    <div className="lab-walk">
      <div className="lab-walk-controls" role="group" aria-label="Playback">
        {!reduced && <button type="button" onClick={() => { if (at >= steps.length) setAt(0); setPlaying(!playing); }}>{playing ? "Pause" : "Play"}</button>}
        <button type="button" onClick={() => { setPlaying(false); setAt((a) => Math.max(a - 1, 0)); }}>Step back</button>
        <button type="button" onClick={() => { setPlaying(false); setAt((a) => Math.min(a + 1, steps.length)); }}>Step</button>
        <button type="button" onClick={() => { setPlaying(false); setAt(0); }}>Reset</button>
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
          <span key={`p${i}`} className="lab-chip" style={{ borderColor: at >= 1 ? "var(--c-prefill)" : "var(--border)" }}>{p.replace(/ /g, "·") || "∅"}</span>
        ))}
        {Array.from({ length: decoded }, (_, i) => (
          <span key={`d${i}`} className="lab-chip lab-chip-new" style={{ borderColor: "var(--c-decode)" }}>t{i + 1}</span>
        ))}
      </div>
      <figure className="lab-chart">
        <figcaption>KV cache of this request: {fmtBytes(kvNow)}</figcaption>
        <svg viewBox="0 0 600 24" role="img" aria-label="KV cache growth">
          <rect x={0} y={2} width={600} height={20} style={{ fill: "var(--bg-soft)" }} />
          <rect x={0} y={2} width={(kvNow / kvMax) * 600} height={20} style={{ fill: C.kv }} className="lab-grow" />
        </svg>
        <Legend items={[{ label: "prompt token (prefill: compute-bound)", color: C.prefill }, { label: "generated token (decode: memory-bound)", color: C.decode }, { label: "KV cache", color: C.kv }]} />
      </figure>
    </div>
  );
}
