// Continuous batching, one engine step at a time: the engine simulation's own step log (trace_steps) replayed —
// who runs, who waits, the token budget each step spends and the KV blocks it holds.
import type { ReactNode } from "react";
import { fmtNum, fmtSeconds, useSimulation } from "../areas/lab/lib";
import type { SimulatorResults } from "../areas/lab/lib";
import { Block, Frame, Legend, linear, PlayerControls, usePlayer, type Params } from "./kit";
import "./diagrams.css";  // also when the Lab shows a replay outside a chapter's diagrams
import { Value } from "./memory";

export const STEPPER_STEPS = 60;

/** The request the stepper sends: a small Poisson workload whose prompts are long enough to be chunked. */
export function stepperBody(params: Params) {
  return {
    model: params.model, gpu: params.gpu, max_num_batched_tokens: params.max_num_batched_tokens,
    max_num_seqs: params.max_num_seqs, trace_steps: STEPPER_STEPS,
    long_prefill_token_threshold: params.long_prefill_token_threshold,
    scheduler_reserve_full_isl: params.scheduler_reserve_full_isl === "true",
    workload: {
      num_requests: params.num_requests, arrival_rate_per_s: params.arrival_rate_per_s,
      prompt_tokens: { dist: "uniform", low: 200, high: 3000 }, output_tokens: { dist: "uniform", low: 16, high: 64 },
    },
  };
}

type StepRow = NonNullable<SimulatorResults["engine"]["step_log"]>[number];

/** What the scheduler did in one step, in words: who was admitted, and who waits for the whole prompt to fit. */
function StepEvents({ row }: { row: StepRow }) {
  return (
    <>
      {row.admitted.length > 0 && (
        <span data-testid="step-admitted">
          {" "}Admitted: {row.admitted.map((a) => `#${a.request} (${fmtNum(a.prompt_tokens)}-token prompt)`).join(", ")}.
        </span>
      )}
      {row.held_back && (
        <span data-testid="step-held-back">
          {" "}Request #{row.held_back.request} ({fmtNum(row.held_back.tokens)} tokens) waits: its whole prompt needs
          {" "}{fmtNum(row.held_back.blocks_needed)} KV blocks and {fmtNum(row.held_back.blocks_free)} are free
          (scheduler_reserve_full_isl).
        </span>
      )}
    </>
  );
}

/** One engine's step log, replayed: the batch and queue, the budget spent, the KV blocks held, what the step did. */
export function StepReplay({ log, budget, blocks, frame }: {
  log: StepRow[]; budget: number; blocks: number;
  frame: (parts: { controls: ReactNode; numbers: ReactNode; picture: ReactNode }) => ReactNode;
}) {
  const player = usePlayer(Math.max(log.length, 1), 400, "first");
  const row = log[Math.min(player.step, log.length - 1)];
  const slots = Math.max(...log.map((r) => r.running + r.waiting), 1);
  const sw = Math.min(36, 560 / slots);
  const bar = linear(0, 1, 0, 460);
  return frame({
    controls: <PlayerControls player={player} label="Run the scheduler" scrubLabel="Engine step" scrubTestId="diagram-slider"
      format={(v) => `${v + 1} of ${log.length}`}
      narration={row ? `Step ${row.step}: ${row.running} running and ${row.waiting} waiting; the step spends ${fmtNum(row.tokens)} of the ${fmtNum(budget)}-token budget`
        + `${row.admitted.length ? ` and admits ${row.admitted.length} new request${row.admitted.length === 1 ? "" : "s"}` : ""}${row.held_back ? `; request #${row.held_back.request} waits for KV blocks` : ""}.` : ""} />,
    numbers: row && <>
      step {row.step}: <Value value={row.running} text={`${row.running} running`} />, {row.waiting} waiting;
      {" "}{fmtNum(row.tokens)} of {fmtNum(budget)} budget tokens in {fmtSeconds(row.duration_s)};
      {" "}KV {fmtNum(row.kv_blocks_used)} of {fmtNum(blocks)} blocks.
      <StepEvents row={row} />
    </>,
    picture: (
      <svg viewBox="0 0 600 130" role="img" aria-label={row ? `Step ${row.step}: ${row.running} running, ${row.waiting} waiting` : "Engine steps"}
        data-testid="diagram-svg" data-step={row?.step ?? 0}>
        <text x={0} y={12}>batch and queue</text>
        {row && Array.from({ length: row.running + row.waiting }, (_, i) => (
          <Block key={i} concept={i < row.running ? "decode" : "waste"} x={i * sw} y={18} width={sw - 3} height={24}
            title={i < row.running ? "running" : "waiting"} />
        ))}
        <text x={0} y={64}>tokens / budget</text>
        <rect x={120} y={52} width={460} height={16} fill="none" stroke="var(--fg-soft)" />
        {row && <Block concept="tokens" x={120} y={52} width={bar(Math.min(row.tokens / budget, 1))} height={16} title={`${row.tokens} tokens`} />}
        <text x={0} y={98}>KV blocks</text>
        <rect x={120} y={86} width={460} height={16} fill="none" stroke="var(--fg-soft)" />
        {row && <Block concept="kv" x={120} y={86} width={bar(row.kv_blocks_used / blocks)} height={16} title={`${row.kv_blocks_used} blocks`} />}
        {row && <text x={0} y={124}>t = {fmtSeconds(row.end_s)}</text>}
      </svg>
    ),
  });
}

export const STEPPER_LEGEND = <Legend items={[{ concept: "decode", label: "request in the batch" }, { concept: "waste", label: "request waiting (idle)" },
  { concept: "tokens", label: "tokens computed this step" }, "kv"]} />;

export function BatchingStepper({ params }: { params: Params }) {
  const { data, error } = useSimulation("engine", stepperBody(params));
  return (
    <StepReplay log={data?.step_log ?? []} budget={Number(params.max_num_batched_tokens)} blocks={data?.kv_cache.blocks_per_replica ?? 1}
      frame={({ controls, numbers, picture }) => (
        <Frame name="batching-stepper" params={params} error={error?.message} controls={controls} legend={STEPPER_LEGEND} numbers={numbers}>
          {picture}
        </Frame>
      )} />
  );
}
