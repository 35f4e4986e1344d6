// Result views shared by the main Lab and the single-tool panels.
import { C, HBars, Plot, Roofline, StackedBar } from "./charts";
import { Stat } from "./form";
import { fmtBytes, fmtNum, fmtRange, fmtSeconds, limitingFactor, type SimulatorResults } from "./lib";

export function MemoryView({ fit }: { fit: SimulatorResults["fit"] }) {
  const p = fit.per_gpu_bytes;
  const segments = [
    { key: "weights", label: "Weights", value: p.weights, color: C.weights, text: `Weights ${fmtBytes(p.weights)}` },
    { key: "kv", label: "KV cache", value: p.kv_cache, color: C.kv, text: `KV cache ${fmtBytes(p.kv_cache)}` },
    { key: "activations", label: "Activations", value: p.activations, color: C.activations, text: `Activations ${fmtBytes(p.activations)}` },
    { key: "overhead", label: "Runtime overhead", value: p.runtime_overhead, color: C.overhead, text: `Runtime overhead ${fmtBytes(p.runtime_overhead)}` },
    { key: "free", label: "Free", value: p.free, color: C.waste, text: `Free ${fmtBytes(p.free)}` },
  ];
  return (
    <section aria-label="Memory per GPU">
      <StackedBar title={`Memory per GPU (${fmtBytes(fit.memory_bytes)}, budget ${fmtBytes(fit.budget_bytes)})`} segments={segments} total={fit.memory_bytes}
        capacity={{ value: fit.budget_bytes, label: `usable budget ${fmtBytes(fit.budget_bytes)}` }} />
      <dl className="lab-stats">
        <Stat label="Fits" value={fit.fits ? "yes" : "no"} testId="fit-fits" />
        <Stat label="Minimum TP that fits" value={fit.min_tensor_parallel === null ? "none up to 8" : String(fit.min_tensor_parallel)} testId="fit-min-tp" />
        <Stat label="Max concurrent sequences" value={fmtNum(fit.max_concurrent_sequences)} />
        <Stat label="Headroom" value={fmtBytes(fit.headroom_bytes)} />
      </dl>
    </section>
  );
}

export function StepView({ step }: { step: SimulatorResults["step-time"] }) {
  const pts = step.roofline.points.map((p) => ({
    label: `${p.phase} (${p.bound}-bound)`, ai: p.arithmetic_intensity_flops_per_byte, flops: p.achieved_flops_per_s,
    color: p.phase === "prefill" ? C.prefill : C.decode,
  }));
  return (
    <section aria-label="Step time">
      {!step.feasible && (
        <p className="lab-warning" role="status" data-testid="step-infeasible">
          Not feasible: {step.reason} {step.fix} The times below are what the step would take if it ran.
        </p>
      )}
      <dl className="lab-stats">
        <Stat label="Step time" value={fmtSeconds(step.step_seconds)} range={fmtRange(step.step_seconds_range, fmtSeconds)} testId="step-seconds" />
        <Stat label="Bound" value={step.bound} testId="step-bound" />
        <Stat label="Tokens/s" value={fmtNum(step.tokens_per_s)} range={fmtRange(step.tokens_per_s_range, (v) => fmtNum(v))} />
        <Stat label="Compute / memory / comm." value={`${fmtSeconds(step.compute_seconds)} / ${fmtSeconds(step.memory_seconds)} / ${fmtSeconds(step.communication_seconds)}`} />
        <Stat label="Intensity vs ridge" value={`${fmtNum(step.arithmetic_intensity_flops_per_byte)} vs ${fmtNum(step.ridge_point_flops_per_byte)} FLOP/B`} />
        <Stat label="Crossover batch" value={step.crossover_reachable ? fmtNum(Math.round(step.crossover_batch)) : "never (KV grows as fast)"} />
      </dl>
      <TimeBars step={step} />
      <Roofline peak={step.roofline.peak_flops_per_s} bandwidth={step.roofline.bandwidth_bytes_per_s} points={pts} />
    </section>
  );
}

const PART_LABELS: Record<string, string> = { gemms: "GEMMs", attention: "Attention", experts: "Experts" };

/** The parts of a layer run one after the other: a part whose compute and memory overlap takes the longer of the two
 * (coloured by which), the routed experts their sum (two bars) and, for a MoE, their fixed kernel time (a bar of its
 * own, taken out of the overhead); then communication and overhead: the bars add up to the step. */
function TimeBars({ step }: { step: SimulatorResults["step-time"] }) {
  return (
    <HBars title="Time per step by resource, part by part (GEMMs and attention take the longer of their compute and memory, a MoE's experts both, plus their fixed kernel time; the bars add up to the step)" fmt={fmtSeconds}
      bars={[
        ...step.parts.flatMap((p) => {
          const label = PART_LABELS[p.part] ?? p.part;
          if (!p.overlapped) {
            return [
              { label: `${label} (compute)`, value: p.compute_seconds, color: C.compute },
              { label: `${label} (memory)`, value: p.memory_seconds, color: C.memory },
            ];
          }
          const bound = p.compute_seconds >= p.memory_seconds ? "compute" : "memory";
          return [{ label: `${label} (${bound})`, value: p.seconds, color: C[bound] }];
        }),
        ...(step.expert_kernels_seconds > 0
          ? [{ label: "Experts (fixed kernels)", value: step.expert_kernels_seconds, color: C.overhead }]
          : []),
        { label: "Communication", value: step.communication_seconds, color: C.communication },
        { label: "Overhead", value: step.overhead_seconds - step.expert_kernels_seconds, color: C.overhead },
      ]} />
  );
}

export function CurveView({ curve, highlight }: { curve: SimulatorResults["throughput-latency"]; highlight?: number }) {
  const pts = curve.points;
  if (!pts.length) return <p className="lab-warning">{curve.note}</p>;
  const near = highlight ? pts.reduce((a, b) => (Math.abs(b.batch_size - highlight) < Math.abs(a.batch_size - highlight) ? b : a)) : null;
  return (
    <Plot title="Throughput vs latency (prefill interleaved with decode, batch 1 → memory limit)"
      xLabel="TPOT (ms between tokens: decode step + interleaved prefill)" yLabel="output tokens/s"
      fmtX={(v) => (v * 1e3).toPrecision(2)} fmtY={(v) => fmtNum(Math.round(v))}
      series={[
        { label: "expected", color: C.decode, points: pts.map((p) => [p.tpot_seconds, p.tokens_per_s]) },
        { label: "pessimistic", color: C.waste, dashed: true, points: pts.map((p) => [p.tpot_seconds_range[1], p.tokens_per_s_range[0]]) },
        { label: "decode step only", color: C.decode, dashed: true, points: pts.map((p) => [p.decode_step_seconds, p.batch_size / p.decode_step_seconds]) },
      ]}
      markers={near ? [{ label: `batch ${near.batch_size}`, x: near.tpot_seconds, y: near.tokens_per_s, color: C.tokens }] : []}
    />
  );
}

/** Why the cost plan's TP is not the form's: the form's TP does not fit (by how much), or it fits but a larger TP is
 * the cheapest way to meet the SLO. Empty when they agree. */
export function tpChoiceWhy(cap: SimulatorResults["capacity"], fit: SimulatorResults["fit"] | null | undefined, formTp: number): string {
  if (!cap.tp || cap.tp === formTp) return "";
  const plan = `the cost plan uses TP ${cap.tp}`;
  if (fit && !fit.fits && fit.tensor_parallel === formTp) {
    const smallest = fit.min_tensor_parallel;
    return `TP ${formTp} does not fit: weights ${fmtBytes(fit.per_gpu_bytes.weights)} per GPU`
      + ` ${fit.per_gpu_bytes.weights > fit.memory_bytes ? `> ${fmtBytes(fit.memory_bytes)} of ${fit.gpu.name}` : `plus the KV cache > ${fmtBytes(fit.budget_bytes)} usable`}`
      + (smallest ? `; the smallest TP that fits is ${smallest}` : "")
      + (smallest && smallest !== cap.tp ? `, and ${plan}, the cheapest that meets the SLO.` : `, so ${plan}.`);
  }
  return `TP ${formTp} fits, but ${plan}: the cheapest way to meet the SLO (TTFT and time per output token).`;
}

export function CostView({ cap, fit, formTp }: { cap: SimulatorResults["capacity"]; fit?: SimulatorResults["fit"] | null; formTp?: number }) {
  if (!cap.feasible) return <p className="lab-warning" data-testid="cost-infeasible">Not feasible: {cap.note} {cap.fix}</p>;
  const why = formTp ? tpChoiceWhy(cap, fit, formTp) : "";
  return (
    <>
    {why && <p className="lab-note" data-testid="cost-tp-why">{why}</p>}
    <dl className="lab-stats" aria-label="Cost">
      <Stat label="GPUs" value={String(cap.gpus)} range={fmtRange(cap.gpus_range, String)} testId="cost-gpus" />
      <Stat label="Replicas × TP" value={`${cap.replicas} replica${cap.replicas === 1 ? "" : "s"} × TP ${cap.tp}`} testId="cost-layout" />
      <Stat label="$ per hour" value={`$${cap.usd_per_hour.toFixed(2)}`} range={fmtRange(cap.usd_per_hour_range, (v) => `$${v.toFixed(2)}`)} />
      <Stat label="$ per million tokens" value={`$${cap.usd_per_million_tokens.toFixed(4)}`} range={fmtRange(cap.usd_per_million_tokens_range, (v) => `$${v.toFixed(4)}`)} />
      <Stat label="Limited by" value={limitingFactor(cap.limiting_factor)} />
    </dl>
    </>
  );
}
