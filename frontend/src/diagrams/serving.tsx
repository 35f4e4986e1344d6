// Serving-at-scale diagrams: pipeline bubbles, the expert-parallel all-to-all, the prefill→decode KV transfer and
// autoscaling against a traffic curve. Each takes its figures from a simulator endpoint for real catalog parameters.
import { fmtBytes, fmtNum, fmtSeconds, useCatalog, useSimulation } from "../areas/lab/lib";
import { Block, color, Frame, Legend, linear, PlayerControls, POW2, Slider, StepSlider, useAnswer, useHeld, useTour, type Params } from "./kit";
import { Value } from "./memory";

/** Share of a pipeline's time its stages sit idle when m micro-batches fill p stages: (p − 1) / (m + p − 1). */
export const bubbleFraction = (stages: number, microbatches: number) => (stages - 1) / (microbatches + stages - 1);

export function PipelineBubbles({ params }: { params: Params }) {
  const stages = Number(params.pipeline_parallel);
  const steps = [Number(params.microbatches), 1, 4, 32];
  const tour = useTour(steps);
  const micro = tour.value;
  const { data, error } = useSimulation("step-time", {
    model: params.model, gpu: params.gpu, phase: "prefill", batch_size: 1, context_tokens: params.context_tokens,
  });
  // The whole model's prefill of one micro-batch on one GPU, split evenly over the stages (layers / p each).
  const stage = data ? data.step_seconds / stages : 0;
  const slots = micro + stages - 1;
  const bubble = bubbleFraction(stages, micro);
  const cw = 520 / slots, rh = Math.min(24, 150 / stages);
  const idle = `${stages} stages × ${micro} micro-batch${micro === 1 ? "" : "es"} take ${slots} slots of ${fmtSeconds(stage)}, ${fmtSeconds(slots * stage)} in all; the stages sit idle ${(bubble * 100).toFixed(1)}% of the time`;
  const said = !data ? null : [
    `This chapter's pipeline: ${idle}.`,
    `One micro-batch: each stage waits for the one before it, so ${idle}.`,
    `Four micro-batches: while stage 0 works on the second, stage 1 takes the first; ${idle}.`,
    `Thirty-two micro-batches: each stage idles only ${stages - 1} of ${slots} slots (the fill and the drain), so ${idle}.`,
  ][tour.index] ?? `Your ${micro} micro-batches: ${idle}.`;
  const narration = useHeld(said);
  return (
    <Frame name="pipeline-bubbles" params={{ ...params, microbatches: micro }} error={error?.message}
      controls={<StepSlider label="Micro-batches" values={[1, 2, 4, 8, 16, 32, 64]} value={micro} onChange={tour.take} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `${steps[i]} micro-batches`} />}
      legend={<Legend items={[{ concept: "prefill", label: "stage computing a micro-batch" }, { concept: "waste", label: "bubble (stage waiting)" }]} />}
      numbers={data && <>
        {stages} stages × {micro} micro-batches take {slots} slots of {fmtSeconds(stage)} (one stage's share of a {fmtSeconds(data.step_seconds)} prefill):
        {" "}{fmtSeconds(slots * stage)}; idle share (p − 1)/(m + p − 1) = <Value value={bubble} text={`${(bubble * 100).toFixed(1)}%`} />
      </>}>
      <svg viewBox={`0 0 600 ${stages * rh + 24}`} role="img" aria-label={`Pipeline of ${stages} stages and ${micro} micro-batches`} data-testid="diagram-svg">
        {Array.from({ length: stages }, (_, s) => (
          <g key={s}>
            <text x={0} y={s * rh + rh * 0.7}>stage {s}</text>
            {Array.from({ length: slots }, (_, t) => {
              const busy = t >= s && t < s + micro;
              return <Block key={t} concept={busy ? "prefill" : "waste"} x={70 + t * cw} y={s * rh + 2} width={Math.max(cw - 1, 0.5)} height={rh - 4}
                title={busy ? `stage ${s}, micro-batch ${t - s}` : `stage ${s} idle`} />;
            })}
          </g>
        ))}
        <text x={70} y={stages * rh + 18}>time → ({slots} slots)</text>
      </svg>
    </Frame>
  );
}

export function ExpertAllToAll({ params }: { params: Params }) {
  const steps = [Number(params.expert_parallel), 2, 16, 64];
  const tour = useTour(steps);
  const ep = tour.value;
  const { models } = useCatalog();
  const model = models.find((m) => m.slug === params.model);
  const topK = model?.experts_per_token ?? 0;
  const tokens = Number(params.batch_size);
  // Each rank sends each of its tokens' hidden state (BF16) to the ranks of its top-k experts: dispatch, then combine back.
  const message = tokens * topK * (model?.hidden_size ?? 0) * 2;
  const body = (n: number) => (model && topK ? { op: "all_to_all", algorithm: "ring", message_bytes: message, num_gpus: n, gpu: params.gpu } : null);
  const { data, fresh, error } = useAnswer("collectives", body(ep), steps.map(body));
  const moeLayers = model ? model.num_layers - (model.first_k_dense_replace ?? 0) : 0;
  const perStep = data ? 2 * data.seconds * moeLayers : null;
  const experts = model?.num_experts ?? 0;
  const cost = data && model && perStep !== null
    ? `${fmtNum(experts / ep)} experts per GPU; each all-to-all of ${fmtBytes(message)} takes ${fmtSeconds(data.seconds)} (${data.bound}-bound), dispatch and combine in ${moeLayers} MoE layers ≈ ${fmtSeconds(perStep)} per step` : "";
  const said = !cost || !fresh ? null : [
    `This chapter's ${model?.name} over ${ep} GPUs: ${cost}.`,
    `Two GPUs: ${cost}.`,
    `Sixteen GPUs: fewer experts each, but every token may travel to any of them: ${cost}.`,
    `Sixty-four GPUs: ${cost}.`,
  ][tour.index] ?? `Your ${ep} GPUs: ${cost}.`;
  const narration = useHeld(said);
  const cols = Math.min(ep, 16), boxW = 560 / cols;
  return (
    <Frame name="ep-all-to-all" params={{ ...params, expert_parallel: ep }} error={model && !topK ? `${model.name} is not a mixture of experts` : error?.message}
      controls={<StepSlider label="Expert parallel" values={POW2(2, 64)} value={ep} onChange={tour.take} format={(v) => `${v} GPUs`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `EP ${steps[i]}`} />}
      legend={<Legend items={[{ concept: "weights", label: "experts held by a GPU" }, { concept: "communication", label: "all-to-all traffic (dispatch and combine)" }]} />}
      numbers={data && model && <>
        {experts} experts over {ep} GPUs = {fmtNum(experts / ep)} per GPU; each GPU dispatches {tokens} tokens × top-{topK} × {model.hidden_size} × 2 B
        = {fmtBytes(message)}: <Value value={data.seconds} text={fmtSeconds(data.seconds)} /> per all-to-all; dispatch + combine × {moeLayers} MoE layers
        {perStep !== null && <> ≈ {fmtSeconds(perStep)} per step</>} ({data.bound}-bound)
      </>}>
      <svg viewBox="0 0 600 150" role="img" aria-label={`All-to-all among ${ep} expert-parallel GPUs`} data-testid="diagram-svg">
        {Array.from({ length: cols }, (_, i) => Array.from({ length: cols }, (_, j) => i === j ? null : (
          <line key={`${i}-${j}`} x1={20 + i * boxW + boxW / 2} y1={40} x2={20 + j * boxW + boxW / 2} y2={110}
            stroke={color("communication")} strokeOpacity={Math.min(0.9, 6 / cols)} strokeWidth={1.5} />
        )))}
        {Array.from({ length: cols }, (_, i) => (
          <g key={i}>
            <Block concept="weights" x={20 + i * boxW + 2} y={14} width={boxW - 4} height={26} title={`GPU ${i}: ${fmtNum(experts / ep)} experts`} />
            <Block concept="weights" x={20 + i * boxW + 2} y={110} width={boxW - 4} height={26} title={`GPU ${i}`} />
          </g>
        ))}
        <text x={0} y={10}>tokens on each GPU{ep > cols ? ` (16 of ${ep} shown)` : ""}</text>
        <text x={0} y={148}>the GPUs holding their experts</text>
      </svg>
    </Frame>
  );
}

/** One direction of a GPU's NVLink (the catalog's figure is bidirectional) and a 400 Gb/s RDMA NIC, bytes/s. */
const RDMA_400G = 400e9 / 8;

export function PdTransfer({ params }: { params: Params }) {
  const steps = [Number(params.context_tokens), 1024, 32768, 131072];
  const tour = useTour(steps);
  const context = tour.value;
  const { gpus } = useCatalog();
  const gpu = gpus.find((g) => g.slug === params.gpu);
  const kvBody = (c: number) => ({ model: params.model, context_tokens: c, kv_dtype: params.kv_dtype });
  const prefillBody = (c: number) => ({ model: params.model, gpu: params.gpu, phase: "prefill", context_tokens: c, kv_dtype: params.kv_dtype });
  const kv = useAnswer("kv-cache", kvBody(context), steps.map(kvBody));
  const prefill = useAnswer("step-time", prefillBody(context), steps.map(prefillBody));
  const bytes = kv.data?.bytes_per_sequence ?? 0;
  const links = gpu ? [
    { label: "NVLink, same node", rate: gpu.interconnect_bandwidth_bytes_per_s / 2 },
    { label: "400 Gb/s RDMA, across nodes", rate: RDMA_400G },
  ] : [];
  const prefillS = prefill.data?.step_seconds ?? 0;
  const longest = Math.max(prefillS, ...links.map((l) => bytes / l.rate), 1e-9);
  const x = linear(0, longest, 0, 380);
  const moving = gpu && kv.data ? `its KV cache is ${fmtBytes(bytes)}; prefill takes ${fmtSeconds(prefillS)}, moving the cache ${links.map((l) => `${fmtSeconds(bytes / l.rate)} over ${l.label}`).join(" or ")}` : "";
  const said = !moving || !prefill.data || !kv.fresh || !prefill.fresh ? null : [
    `This chapter's ${fmtNum(context)}-token prompt: ${moving}.`,
    `A ${fmtNum(context)}-token prompt: ${moving}.`,
    `A ${fmtNum(context)}-token prompt: ${moving}; the cache grows with the prompt, and so does the transfer.`,
    `A ${fmtNum(context)}-token prompt: ${moving}; the decode GPU starts once the last block arrives.`,
  ][tour.index] ?? `Your ${fmtNum(context)}-token prompt: ${moving}.`;
  const narration = useHeld(said);
  return (
    <Frame name="pd-transfer" params={{ ...params, context_tokens: context }} error={kv.error?.message ?? prefill.error?.message}
      controls={<StepSlider label="Prompt" values={POW2(256, 131_072)} value={context} onChange={tour.take} format={(v) => `${fmtNum(v)} tokens`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `${fmtNum(steps[i])} tokens`} />}
      legend={<Legend items={["prefill", { concept: "kv", label: "KV cache moved to the decode GPU" }, "communication"]} />}
      numbers={kv.data && prefill.data && gpu && <>
        the prompt's KV cache is <Value value={bytes} text={fmtBytes(bytes)} />; prefill takes {fmtSeconds(prefillS)};
        moving it takes {links.map((l) => `${fmtSeconds(bytes / l.rate)} over ${l.label}`).join(", ")}
      </>}>
      <svg viewBox="0 0 600 120" role="img" aria-label="Prefill time against KV transfer time" data-testid="diagram-svg">
        <text x={0} y={20}>prefill GPU</text>
        <Block concept="prefill" x={200} y={6} width={x(prefillS)} height={22} title={`prefill ${fmtSeconds(prefillS)}`} />
        {links.map((l, i) => (
          <g key={l.label}>
            <text x={0} y={58 + i * 36}>{l.label}</text>
            <Block concept="communication" x={200} y={44 + i * 36} width={x(bytes / l.rate)} height={22} title={`${fmtBytes(bytes)} at ${fmtBytes(l.rate)}/s`} />
            <Block concept="kv" x={200 + x(bytes / l.rate) + 4} y={48 + i * 36} width={14} height={14} title="KV blocks arrive; decode starts" />
          </g>
        ))}
      </svg>
    </Frame>
  );
}

/** A two-hour morning: quiet, a ramp to the peak over half an hour, the peak, then an evening fall. */
export function trafficAt(minute: number, peak: number): number {
  const ramp = (from: number, to: number) => Math.min(1, Math.max(0, (minute - from) / (to - from)));
  return peak * (0.2 + 0.8 * ramp(20, 50) - 0.8 * ramp(90, 110));
}

/** Replicas ready each minute when the autoscaler orders ceil(traffic / per-replica rate) and a new replica serves
 * only after the cold start; scale-down is immediate. */
export function replicaTimeline(perReplica: number, peak: number, coldStartMin: number, minutes = 120) {
  const ordered: number[] = [], ready: number[] = [], traffic: number[] = [];
  for (let t = 0; t < minutes; t++) {
    traffic.push(trafficAt(t, peak));
    ordered.push(Math.max(1, Math.ceil(traffic[t] / perReplica)));
    const readyNow = t === 0 ? ordered[0] : Math.min(ordered[t], Math.max(ready[t - 1], t >= coldStartMin ? ordered[t - coldStartMin] : ordered[0]));
    ready.push(readyNow);
  }
  return { traffic, ordered, ready };
}

export function Autoscaling({ params }: { params: Params }) {
  const steps = [Number(params.cold_start_minutes), 1, 15, 30];
  const tour = useTour(steps);
  const cold = tour.value;
  const peak = Number(params.peak_requests_per_s);
  const { data, error } = useSimulation("capacity", {
    model: params.model, gpu: params.gpu,
    workload: { requests_per_s: peak, prompt_tokens: params.context_tokens, output_tokens: params.output_tokens },
    slo: { ttft_p99_s: 2, tpot_s: 0.05 },
  });
  const perReplica = data?.requests_per_s_per_replica ?? 0;
  const line = perReplica > 0 ? replicaTimeline(perReplica, peak, cold) : null;
  const short = line ? line.traffic.map((r, t) => Math.max(0, r - line.ready[t] * perReplica)) : [];
  const unservedRequests = short.reduce((a, b) => a + b * 60, 0);
  const H = 130, W = 560;
  const x = linear(0, 120, 30, 30 + W);
  const y = linear(0, peak * 1.15, H, 0);
  const path = (values: number[]) => values.map((v, t) => `${t ? "L" : "M"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join("");
  const gap = line ? `${fmtNum(Math.round(unservedRequests))} requests arrive over capacity while ${Math.max(...line.ordered)} replicas come up for the peak of ${fmtNum(peak)} req/s` : "";
  const said = !line ? null : [
    `This chapter's ${cold}-minute cold start: ${gap}.`,
    `A 1-minute cold start: ${gap}.`,
    `A 15-minute cold start: replicas ordered at the start of the ramp serve only a quarter of an hour later; ${gap}.`,
    `A 30-minute cold start, as long as the ramp itself: ${gap}.`,
  ][tour.index] ?? `Your ${cold}-minute cold start: ${gap}.`;
  const narration = useHeld(said);
  return (
    <Frame name="autoscaling" params={{ ...params, cold_start_minutes: cold }} error={error?.message}
      controls={<Slider label="Cold start" value={cold} min={1} max={30} onChange={tour.take} format={(v) => `${v} min`} />}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `${steps[i]} min cold start`} />}
      legend={<Legend items={[{ concept: "tokens", label: "traffic (requests/s)" }, { concept: "compute", label: "capacity of ready replicas" }, { concept: "waste", label: "traffic over capacity" }]} />}
      numbers={data && line && <>
        one replica ({data.gpus / Math.max(data.replicas, 1)} × {data.gpu.name}) serves {fmtNum(perReplica)} req/s within the SLO; the peak needs {Math.max(...line.ordered)} replicas;
        with a cold start of {cold} minutes, <Value value={unservedRequests} text={fmtNum(Math.round(unservedRequests))} /> requests arrive over capacity during the ramp
      </>}>
      <svg viewBox={`0 0 600 ${H + 22}`} role="img" aria-label="Traffic against ready replicas over two hours" data-testid="diagram-svg">
        {line && line.ready.map((r, t) => (
          <Block key={t} concept={short[t] > 0 ? "waste" : "compute"} x={x(t)} y={y(r * perReplica)} width={W / 120} height={H - y(r * perReplica)} opacity={0.55} />
        ))}
        {line && <path d={path(line.traffic)} fill="none" stroke={color("tokens")} strokeWidth={2.5} />}
        <line className="d-axis" x1={30} x2={30 + W} y1={H} y2={H} />
        <text x={30} y={H + 16}>0 min</text><text x={30 + W} y={H + 16} textAnchor="end">120 min</text>
        <text x={0} y={10}>req/s</text>
      </svg>
    </Frame>
  );
}
