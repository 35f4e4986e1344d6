// Sampling the next token: the model's scores (logits) for the candidates, softmax at a temperature, the top-k and
// top-p cuts, and one draw from what is left. Worked in the browser from a fixed set of logits, so every reader sees
// the same numbers; the maths is samplingSteps (exported for its test).
import { useState } from "react";
import { Block, Frame, Legend, linear, PlayerControls, Slider, usePlayer, type Params } from "./kit";
import { Value } from "./memory";

/** "The GPU ran out of …": ten candidates and the scores a model might give them. */
export const CANDIDATES: [string, number][] = [
  [" memory", 5.1], [" VRAM", 3.9], [" space", 3.2], [" steam", 2.6], [" time", 2.2],
  [" luck", 1.6], [" power", 1.3], [" blocks", 0.9], [" money", 0.5], [" ideas", 0.1],
];
/** The fixed random number of the draw (the same for every reader). */
export const DRAW = 0.63;

export interface SamplingStep { probs: number[]; kept: boolean[]; chosen: number | null }

/** The five steps: logits as probabilities at temperature 1, softmax at T, top-k, top-p (nucleus), renormalise and draw. */
export function samplingSteps(temperature: number, topK: number, topP: number): SamplingStep[] {
  const logits = CANDIDATES.map(([, l]) => l);
  const softmax = (t: number) => {
    const m = Math.max(...logits);
    const e = logits.map((l) => Math.exp((l - m) / t));
    const z = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / z);
  };
  const raw = softmax(1), hot = softmax(Math.max(temperature, 0.05));
  const all = logits.map(() => true);
  const k = topK > 0 ? Math.min(topK, logits.length) : logits.length;
  const byK = hot.map((_, i) => i < k);  // candidates are listed most likely first
  const byP = [...byK];
  let mass = 0;
  hot.forEach((p, i) => {
    if (!byK[i]) return;
    byP[i] = mass < topP;  // keep the smallest prefix whose mass reaches top-p
    mass += p;
  });
  const keptMass = hot.reduce((a, p, i) => a + (byP[i] ? p : 0), 0);
  const renorm = hot.map((p, i) => (byP[i] ? p / keptMass : 0));
  let acc = 0, chosen = 0;
  for (let i = 0; i < renorm.length; i++) {
    acc += renorm[i];
    if (byP[i]) chosen = i;
    if (acc >= DRAW && byP[i]) { chosen = i; break; }
  }
  return [
    { probs: raw, kept: all, chosen: null },
    { probs: hot, kept: all, chosen: null },
    { probs: hot, kept: byK, chosen: null },
    { probs: hot, kept: byP, chosen: null },
    { probs: renorm, kept: byP, chosen },
  ];
}

const STEP_NAMES = ["logits", "temperature", "top-k", "top-p", "draw"];

export function Sampling({ params }: { params: Params }) {
  const [temperature, setTemperature] = useState(Number(params.temperature));
  const topK = Number(params.top_k), topP = Number(params.top_p);
  const steps = samplingSteps(temperature, topK, topP);
  const player = usePlayer(steps.length, 1100);
  const s = steps[player.step];
  const final = steps[steps.length - 1];
  const kept = final.kept.filter(Boolean).length;
  const pct = (v: number) => `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
  const narration = [
    `The model scores every token in its vocabulary; softmax of these scores makes "${CANDIDATES[0][0].trim()}" ${pct(steps[0].probs[0])} likely.`,
    `Temperature ${temperature.toFixed(1)} divides the scores before softmax: ${temperature < 1 ? "sharper, the favourite gains" : temperature > 1 ? "flatter, the tail gains" : "unchanged"} (${pct(steps[1].probs[0])}).`,
    topK > 0 ? `Top-k ${topK} keeps the ${topK} most likely tokens and drops the rest.` : "Top-k is off (0): every token stays.",
    `Top-p ${topP.toFixed(2)} keeps the smallest set whose probability reaches ${pct(topP)}: ${kept} token${kept === 1 ? "" : "s"}.`,
    `What is left is renormalised and one token is drawn: "${CANDIDATES[final.chosen ?? 0][0].trim()}".`,
  ][player.step];
  const W = 600, rowH = 22, L = 90;
  const x = linear(0, Math.max(...s.probs, 0.01), 0, W - L - 60);
  return (
    <Frame name="sampling" params={{ ...params, temperature }}
      controls={<Slider label="Temperature" value={temperature} min={0.1} max={2} step={0.1} onChange={setTemperature} format={(v) => v.toFixed(1)} />}
      player={<PlayerControls player={player} label="Sample a token" narration={narration} format={(i) => STEP_NAMES[i]} />}
      legend={<Legend items={[{ concept: "tokens", label: "tokens: candidate's probability" }, { concept: "waste", label: "cut by top-k / top-p" },
        { concept: "decode", label: "decode: the token drawn" }]} />}
      numbers={<>
        T = {temperature.toFixed(1)}, top-k {topK || "off"}, top-p {topP.toFixed(2)}: {kept} candidates survive; the draw picks{" "}
        <Value value={final.chosen ?? 0} text={`"${CANDIDATES[final.chosen ?? 0][0].trim()}"`} /> ({pct(final.probs[final.chosen ?? 0])} after renormalising)
      </>}>
      <svg viewBox={`0 0 ${W} ${CANDIDATES.length * rowH + 24}`} role="img" data-testid="diagram-svg" data-step={player.step}
        aria-label={`Step ${STEP_NAMES[player.step]}: next-token probabilities after "The GPU ran out of"`}>
        <text x={0} y={12}>The GPU ran out of …</text>
        {CANDIDATES.map(([piece], i) => (
          <g key={piece}>
            <text x={L - 6} y={24 + i * rowH + 14} textAnchor="end">{piece.trim()}</text>
            <Block concept={s.chosen === i ? "decode" : s.kept[i] ? "tokens" : "waste"} x={L} y={24 + i * rowH + 2} width={x(s.probs[i])} height={rowH - 5}
              opacity={s.kept[i] ? 1 : 0.5} title={`${piece.trim()}: ${pct(s.probs[i])}`} />
            <text x={L + x(s.probs[i]) + 6} y={24 + i * rowH + 14}>{s.kept[i] || player.step < 2 ? pct(s.probs[i]) : "cut"}</text>
          </g>
        ))}
      </svg>
    </Frame>
  );
}
