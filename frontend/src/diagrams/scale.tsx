// Scale and cost diagrams: speculative decoding, tensor-parallel all-reduce, MoE load, the cost of a million tokens.
import { useState } from "react";
import { fmtBytes, fmtNum, fmtSeconds, limitingFactor, useCatalog, useSimulation } from "../areas/lab/lib";
import { Block, color, Frame, Legend, linear, PlayerControls, POW2, Slider, StepSlider, useAnswer, useHeld, usePlayer, useTour, type Params } from "./kit";
import { Value } from "./memory";

/** A fixed pseudo-random sequence, so the accept/reject picture is the same for every reader. */
function uniform(i: number): number {
  const s = Math.sin(i * 12.9898 + 78.233) * 43758.5453;
  return s - Math.floor(s);
}

export function Speculative({ params }: { params: Params }) {
  const [alpha, setAlpha] = useState(Number(params.acceptance_rate));
  const gamma = Number(params.draft_tokens);
  const { data, error } = useSimulation("speculative", { acceptance_rate: alpha, draft_tokens: gamma, draft_cost: 0.05 });
  const rounds = 6;
  const player = usePlayer(rounds, 500);
  const cw = 560 / (gamma + 1);
  const acceptedIn = (r: number) => { let a = 0; while (a < gamma && uniform(r * 31 + a) < alpha) a++; return a; };
  const shown = acceptedIn(player.step);
  const narration = `Round ${player.step + 1}: the draft proposes ${gamma} tokens; the target checks them in one step and keeps ${shown}`
    + `${shown < gamma ? `, rejects the rest from token ${shown + 1} on` : ""} and adds its own: ${shown + 1} token${shown ? "s" : ""} for one target step.`;
  return (
    <Frame name="speculative" params={{ ...params, acceptance_rate: alpha }} error={error?.message}
      controls={<Slider label="Acceptance α" value={alpha} min={0} max={0.95} step={0.05} onChange={setAlpha} format={(v) => v.toFixed(2)} />}
      player={<PlayerControls player={player} label="Run rounds" narration={narration} scrubLabel="Round" />}
      legend={<Legend items={[{ concept: "decode", label: "draft token accepted" }, { concept: "waste", label: "rejected (and all after it)" }, { concept: "prefill", label: "token from the target's verify step" }]} />}
      numbers={data && <>
        {fmtNum(data.expected_tokens_per_step)} tokens per target step on average, speedup{" "}
        <Value value={data.speedup} text={`${fmtNum(data.speedup)}×`} /> (best γ = {data.optimal_draft_tokens}, {data.bound}-bound)
      </>}>
      <svg viewBox={`0 0 600 ${rounds * 30 + 10}`} role="img" aria-label="Draft tokens accepted and rejected per round" data-testid="diagram-svg">
        {Array.from({ length: rounds }, (_, r) => {
          const accepted = acceptedIn(r);
          return (
            <g key={r} opacity={r <= player.step ? 1 : 0.2}>
              <text x={0} y={r * 30 + 22}>round {r + 1}</text>
              {Array.from({ length: gamma }, (_, k) => (
                <Block key={k} concept={k < accepted ? "decode" : "waste"} x={40 + k * cw} y={r * 30 + 6} width={cw - 4} height={22}
                  title={k < accepted ? "accepted" : "rejected"} />
              ))}
              <Block concept="prefill" x={40 + gamma * cw} y={r * 30 + 6} width={cw - 4} height={22} title="the target's own token" />
            </g>
          );
        })}
      </svg>
    </Frame>
  );
}

export function TpAllReduce({ params }: { params: Params }) {
  const steps = [Number(params.tensor_parallel), 2, 8, 64];
  const tour = useTour(steps);
  const tp = tour.value;
  const { models } = useCatalog();
  const model = models.find((m) => m.slug === params.model);
  const message = Number(params.batch_size) * (model?.hidden_size ?? 4096) * 2;
  const body = (n: number) => (model ? { op: "all_reduce", algorithm: "ring", message_bytes: message, num_gpus: n, gpu: params.gpu } : null);
  const { data, fresh, error } = useAnswer("collectives", body(tp), steps.map(body));
  const perStep = data && model ? data.seconds * 2 * model.num_layers : null;
  const cost = data && model && perStep !== null
    ? `one all-reduce of ${fmtBytes(message)} takes ${fmtSeconds(data.seconds)} (${data.bound}-bound); 2 per layer × ${model.num_layers} layers = ${fmtSeconds(perStep)} per step` : "";
  const said = !cost || !fresh ? null : [
    `This chapter's ${tp} GPUs each hold 1/${tp} of every layer and add up their partial activations in a ring: ${cost}.`,
    `Two GPUs: ${cost}.`,
    `Eight GPUs: ${cost}.`,
    `Sixty-four GPUs: the ring takes ${2 * (tp - 1)} steps per all-reduce, ${cost}.`,
  ][tour.index] ?? `Your ${tp} GPUs: ${cost}.`;
  const narration = useHeld(said);
  const cx = 300, cy = 95, r = 70;
  const at = (i: number) => [cx + r * Math.cos((2 * Math.PI * i) / tp - Math.PI / 2), cy + r * Math.sin((2 * Math.PI * i) / tp - Math.PI / 2)];
  return (
    <Frame name="tp-allreduce" params={{ ...params, tensor_parallel: tp }} error={error?.message}
      controls={<StepSlider label="Tensor parallel" values={POW2(2, 64)} value={tp} onChange={tour.take} format={(v) => `${v} GPUs`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `TP ${steps[i]}`} />}
      legend={<Legend items={[{ concept: "weights", label: "GPU holding 1/TP of each layer" }, { concept: "communication", label: "ring all-reduce link" }]} />}
      numbers={data && <>
        one all-reduce of {fmtBytes(message)} (batch {params.batch_size} × hidden × 2 B): <Value value={data.seconds} text={fmtSeconds(data.seconds)} />
        {perStep !== null && <> ; 2 per layer × {model?.num_layers} layers = {fmtSeconds(perStep)} of communication per step</>} ({data.bound}-bound)
      </>}>
      <svg viewBox="0 0 600 190" role="img" aria-label={`Ring of ${tp} GPUs`} data-testid="diagram-svg">
        {Array.from({ length: tp }, (_, i) => {
          const [x1, y1] = at(i), [x2, y2] = at((i + 1) % tp);
          return <line key={`l${i}`} x1={x1} y1={y1} x2={x2} y2={y2} stroke={color("communication")} strokeWidth={4} />;
        })}
        {Array.from({ length: tp }, (_, i) => {
          const [x, y] = at(i);
          const s = tp > 16 ? 10 : 22;
          return <g key={i}><Block concept="weights" x={x - s / 2} y={y - s / 2} width={s} height={s} title={`GPU ${i}`} />
            {tp <= 16 && <text x={x} y={y + 4} textAnchor="middle" className="d-on-block">{i}</text>}</g>;
        })}
      </svg>
    </Frame>
  );
}

export function MoeLoad({ params }: { params: Params }) {
  const steps = [0.8, 0, 1.2, 2];
  const tour = useTour(steps);
  const skew = tour.value;
  const experts = Number(params.num_experts);
  const body = (z: number) => ({ num_experts: experts, top_k: params.top_k, tokens: params.batch_size, zipf_exponent: z, capacity_factor: 1.25 });
  const { data, fresh, error } = useAnswer("moe", body(skew), steps.map(body));
  const load = data ? `the busiest expert gets ${fmtNum(data.imbalance)}× the mean against a capacity of ${fmtNum(data.capacity_tokens)} tokens; ${(data.dropped_fraction * 100).toFixed(1)}% of assignments are dropped` : "";
  const said = !data || !fresh ? null : [
    `${fmtNum(Number(params.batch_size))} tokens each pick their top-${params.top_k} of ${experts} experts with a router skew of ${skew.toFixed(1)}: ${load}.`,
    `A perfectly even router (skew 0): ${load}.`,
    `Skew ${skew.toFixed(1)}: a few popular experts take most tokens, ${load}.`,
    `Skew ${skew.toFixed(1)}: ${load}; the idle experts' GPUs wait for the busiest one.`,
  ][tour.index] ?? `Your skew ${skew.toFixed(1)}: ${load}.`;
  const narration = useHeld(said);
  const loads = data?.expected_load_tokens ?? [];
  const max = Math.max(data?.capacity_tokens ?? 1, ...loads) * 1.05;
  const bw = 600 / Math.max(loads.length, 1), H = 150;
  const y = linear(0, max, H, 0);
  return (
    <Frame name="moe-load" params={params} error={error?.message}
      controls={<Slider label="Router skew (Zipf)" value={skew} min={0} max={2} step={0.1} onChange={tour.take} format={(v) => v.toFixed(1)} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `skew ${steps[i].toFixed(1)}`} />}
      legend={<Legend items={[{ concept: "tokens", label: "tokens an expert processes" }, { concept: "waste", label: "dropped over capacity (waste)" }]} />}
      numbers={data && <>
        busiest expert at <Value value={data.imbalance} text={`${fmtNum(data.imbalance)}×`} /> the mean; capacity {fmtNum(data.capacity_tokens)} tokens;
        {" "}{(data.dropped_fraction * 100).toFixed(1)}% of assignments dropped
      </>}>
      <svg viewBox={`0 0 600 ${H + 20}`} role="img" aria-label="Tokens per expert" data-testid="diagram-svg">
        {loads.map((load, i) => {
          const kept = Math.min(load, data!.capacity_tokens);
          return <g key={i}>
            <Block concept="tokens" x={i * bw} y={y(kept)} width={Math.max(bw - 1, 1)} height={H - y(kept)} title={`expert ${i}: ${fmtNum(load)} tokens`} />
            {load > kept && <Block concept="waste" x={i * bw} y={y(load)} width={Math.max(bw - 1, 1)} height={y(kept) - y(load)} />}
          </g>;
        })}
        {data && <line x1={0} x2={600} y1={y(data.capacity_tokens)} y2={y(data.capacity_tokens)} stroke="var(--danger)" strokeDasharray="6 3" />}
        <text x={0} y={H + 16}>experts, busiest first</text>
      </svg>
    </Frame>
  );
}

export function TokenCost({ params }: { params: Params }) {
  const steps = [10, 1, 100, 500];
  const tour = useTour(steps);
  const rate = tour.value;
  const body = (r: number) => ({
    model: params.model, gpu: params.gpu,
    workload: { requests_per_s: r, prompt_tokens: params.context_tokens, output_tokens: params.output_tokens },
    slo: { ttft_p99_s: 2, tpot_s: 0.05 },
  });
  const { data, fresh, error } = useAnswer("capacity", body(rate), steps.map(body));
  const perM = data?.usd_per_million_tokens ?? 0;
  const tokensPerHour = data && perM > 0 ? (data.usd_per_hour / perM) * 1e6 : 0;
  const x = linear(0, Math.max(data?.usd_per_million_output_tokens ?? 1, perM) * 1.1, 0, 420);
  const bill = data ? `${data.gpus} × ${data.gpu.name} at $${fmtNum(data.usd_per_hour)}/h serve ${fmtNum(Math.round(tokensPerHour))} tokens/h: $${fmtNum(perM)} per million tokens (limited by ${limitingFactor(data.limiting_factor)})` : "";
  const said = !data || !fresh ? null : [
    `At ${rate} requests/s, ${bill}.`,
    `At 1 request/s, ${bill}; GPUs are bought whole, so a light load pays for idle time.`,
    `At 100 requests/s, ${bill}.`,
    `At 500 requests/s, ${bill}; the price per token is the price per GPU-hour over the tokens each GPU serves within the SLO.`,
  ][tour.index] ?? `At your ${rate} requests/s, ${bill}.`;
  const narration = useHeld(said);
  return (
    <Frame name="token-cost" params={params} error={error?.message}
      controls={<StepSlider label="Traffic" values={[1, 2, 5, 10, 20, 50, 100, 200, 500]} value={rate} onChange={tour.take} format={(v) => `${v} req/s`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `${steps[i]} req/s`} />}
      legend={<Legend items={[{ concept: "compute", label: "compute: GPU-hours bought" }, { concept: "tokens", label: "tokens: $ per million (prompt + output)" }, { concept: "decode", label: "decode: $ per million output tokens" }]} />}
      numbers={data && <>
        {data.gpus} × {data.gpu.name} at ${fmtNum(data.price_per_gpu_hour_usd)}/h = ${fmtNum(data.usd_per_hour)}/h for {fmtNum(Math.round(tokensPerHour))} tokens/h:
        {" "}<Value value={perM} text={`$${fmtNum(perM)}`} /> per million tokens (limited by {limitingFactor(data.limiting_factor)})
      </>}>
      <svg viewBox="0 0 600 110" role="img" aria-label="Cost per million tokens" data-testid="diagram-svg">
        <text x={0} y={20}>$/hour</text>
        <Block concept="compute" x={170} y={6} width={Math.min(420, (data?.gpus ?? 0) * 40)} height={22} title={`${data?.gpus} GPUs`} />
        <text x={0} y={58}>$/M tokens</text>
        <Block concept="tokens" x={170} y={44} width={x(perM)} height={22} />
        <text x={0} y={96}>$/M output tokens</text>
        <Block concept="decode" x={170} y={82} width={x(data?.usd_per_million_output_tokens ?? 0)} height={22} />
      </svg>
    </Frame>
  );
}
