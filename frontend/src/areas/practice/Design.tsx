// Design exercises: the capacity-planning interview. The learner reads the brief, proposes a deployment and a
// rationale, and the server grades it with the engine/cluster simulation (feasible, SLO met, cost against the best
// answer found, what binds). The deployment lives in the query string, so a reload or a shared link keeps it.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link, useParams } from "react-router-dom";
import { api, ApiError } from "../../lib/api";
import { useAuth } from "../../lib/auth";
import type { components } from "../../generated/api";
import { useQueryState } from "../lab/lib";

type Summary = components["schemas"]["DesignExerciseSummary"];
type Detail = components["schemas"]["DesignExerciseDetail"];
type Attempt = components["schemas"]["DesignAttemptOutput"];
type Grade = components["schemas"]["DesignGrade"];
interface Page<T> { results: T[] }

const CATEGORY: Record<string, string> = {
  chat: "Chat", "long-context": "Long context", reasoning: "Reasoning", agents: "Agents with cache reuse",
  moe: "Mixture of experts", disaggregation: "Prefill/decode disaggregation", batch: "Batch and bursty traffic",
};
const VERDICT: Record<Grade["verdict"], string> = {
  outside_constraints: "Outside the constraints", does_not_fit: "Does not fit", misses_slo: "Misses the SLO",
  meets_slo: "Meets the SLO",
};
const ms = (s: number) => (s >= 10 ? `${s.toLocaleString(undefined, { maximumFractionDigits: 1 })} s`
  : `${(s * 1000).toLocaleString(undefined, { maximumFractionDigits: s < 0.1 ? 1 : 0 })} ms`);
const usd = (v: number) => `$${v.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

function lengthText(value: unknown): string {
  if (typeof value === "number") return `${value.toLocaleString()} tokens`;
  const d = value as { dist: string; value?: number; low?: number; high?: number; mean?: number; sigma?: number };
  if (d.dist === "fixed") return `${d.value?.toLocaleString()} tokens`;
  if (d.dist === "uniform") return `${d.low?.toLocaleString()}–${d.high?.toLocaleString()} tokens (uniform)`;
  if (d.dist === "lognormal") return `median ${d.mean?.toLocaleString()} tokens (lognormal, σ ${d.sigma})`;
  return "from a trace";
}

export function DesignList() {
  const [exercises, setExercises] = useState<Summary[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api<Page<Summary>>("/design-exercises/?page_size=100").then((page) => setExercises(page.results))
      .catch((caught) => setError(caught instanceof ApiError ? caught.message : "Could not load the exercises."));
  }, []);
  const groups = Object.keys(CATEGORY).map((category) => [category, (exercises ?? []).filter((e) => e.category === category)] as const);
  return (
    <section className="design">
      <h1>Design exercises</h1>
      <p className="muted">The capacity-planning interview: a model, traffic, latency targets and a GPU budget. Propose a
        deployment and a rationale; the engine simulation grades it — does it fit, does it meet the p99 SLOs, and what
        does it cost against the best answer our search found.</p>
      {error && <p role="alert" className="error">{error}</p>}
      {!exercises && !error && <p className="muted">Loading…</p>}
      {groups.filter(([, list]) => list.length > 0).map(([category, list]) => (
        <section key={category} aria-labelledby={`design-${category}`}>
          <h2 id={`design-${category}`}>{CATEGORY[category]}</h2>
          <ul className="design-list">
            {list.map((e) => (
              <li key={e.slug}>
                <Link to={`/practice/design/${e.slug}`}>{e.title}</Link>
                <span className="muted"> · {e.level} · {e.model} · p99 TTFT ≤ {ms(e.slo.ttft_s ?? 1)}, TPOT ≤ {ms(e.slo.tpot_s ?? 0.1)}</span>
                {e.best_score != null && <span className="design-best" aria-label={`Your best score ${e.best_score}`}> · best {e.best_score}/100</span>}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}

/** The design round of interview mode: minutes left, then "Time is up" (the answer can still be graded). */
function RoundClock({ seconds }: { seconds: number }) {
  const [started] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const left = Math.max(0, seconds - Math.floor((now - started) / 1000));
  const text = left > 0 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left` : "Time is up";
  return <p role="timer" aria-live="off" className={`design-clock${left === 0 ? " over" : ""}`}>Design round · {text}</p>;
}

const DEFAULTS = {
  round: "",
  gpu: "", tensor_parallel: "1", replicas: "1", weight_dtype: "bf16", kv_dtype: "bf16", max_num_seqs: "256",
  max_num_batched_tokens: "8192", chunked_prefill: "true", prefix_caching: "false", router: "round_robin",
  split: "false", prefill_replicas: "1", decode_replicas: "1", prefill_tensor_parallel: "", decode_tensor_parallel: "",
};
const POOL_TP_KEYS = ["prefill_tensor_parallel", "decode_tensor_parallel"] as const;

function deploymentBody(v: Record<string, string>, fallbackGpu: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    gpu: v.gpu || fallbackGpu, tensor_parallel: Number(v.tensor_parallel), weight_dtype: v.weight_dtype,
    kv_dtype: v.kv_dtype, max_num_seqs: Number(v.max_num_seqs), max_num_batched_tokens: Number(v.max_num_batched_tokens),
    chunked_prefill: v.chunked_prefill === "true", prefix_caching: v.prefix_caching === "true", router: v.router,
  };
  if (v.split === "true") {
    // Each pool runs tensor_parallel unless given its own.
    body.disaggregation = { prefill_replicas: Number(v.prefill_replicas), decode_replicas: Number(v.decode_replicas),
      ...Object.fromEntries(POOL_TP_KEYS.filter((k) => v[k]).map((k) => [k, Number(v[k])])) };
  } else {
    body.replicas = Number(v.replicas);
  }
  return body;
}

/** A token length as the Lab's engine page takes it: a median and a lognormal spread (0: every request the same). */
function labLength(value: unknown): [number, number] {
  if (typeof value === "number") return [value, 0];
  const d = value as { dist: string; value?: number; low?: number; high?: number; mean?: number; sigma?: number };
  if (d.dist === "lognormal") return [d.mean ?? 512, d.sigma ?? 0];
  if (d.dist === "uniform") return [Math.round(((d.low ?? 0) + (d.high ?? 0)) / 2), 0];  // the Lab has no uniform
  return [d.value ?? 512, 0];
}

/** The Lab's engine page with this exercise's traffic and SLOs and the deployment's knobs (same seed: same run). */
function labLink(exercise: Detail, body: Record<string, unknown>): string {
  const traffic = exercise.traffic as Record<string, unknown>;
  const [prompt, promptSigma] = labLength(traffic.prompt_tokens);
  const [output, outputSigma] = labLength(traffic.output_tokens);
  const split = body.disaggregation as { prefill_replicas: number; decode_replicas: number;
    prefill_tensor_parallel?: number; decode_tensor_parallel?: number } | undefined;
  const query = new URLSearchParams({
    model: exercise.model, gpu: String(body.gpu), tensor_parallel: String(body.tensor_parallel),
    replicas: String(body.replicas ?? 1), router: String(body.router), rate: String(traffic.arrival_rate_per_s),
    num_requests: String(traffic.num_requests), prompt: String(prompt), prompt_sigma: String(promptSigma),
    output: String(output), output_sigma: String(outputSigma), arrival: String(traffic.arrival ?? "poisson"),
    burst_cv: String(traffic.burst_cv ?? 3), shared_prefix_tokens: String(traffic.shared_prefix_tokens ?? 0),
    prefix_groups: String(traffic.prefix_groups ?? 1), session_turns: String(traffic.session_turns ?? 1),
    max_num_seqs: String(body.max_num_seqs), max_num_batched_tokens: String(body.max_num_batched_tokens),
    chunked_prefill: String(body.chunked_prefill), prefix_caching: String(body.prefix_caching),
    weight_dtype: String(body.weight_dtype), kv_dtype: String(body.kv_dtype),
    prefill_replicas: String(split?.prefill_replicas ?? 0), decode_replicas: String(split?.decode_replicas ?? 0),
    prefill_tensor_parallel: String(split?.prefill_tensor_parallel ?? ""),
    decode_tensor_parallel: String(split?.decode_tensor_parallel ?? ""),
    ttft: String(exercise.slo.ttft_s), tpot: String(exercise.slo.tpot_s),
  });
  return `/lab/engine?${query}`;
}

function GradePanel({ attempt, onRate, signedIn }: { attempt: Attempt; onRate: (met: number[]) => void; signedIn: boolean }) {
  const g = attempt.grade;
  const [met, setMet] = useState<number[]>(attempt.key_points_met ?? []);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => setMet(attempt.key_points_met ?? []), [attempt]);
  // A new grade is read at once: on a phone it is a screen below the button.
  useEffect(() => { heading.current?.scrollIntoView({ block: "start" }); heading.current?.focus({ preventScroll: true }); }, [attempt.id, g]);
  return (
    <section className={`design-grade design-${g.verdict}`} aria-labelledby="design-verdict" data-testid="design-grade">
      <h2 id="design-verdict" ref={heading} tabIndex={-1}>{VERDICT[g.verdict]} · <span data-testid="design-score">{g.score}</span>/100</h2>
      <p>{g.headline}</p>
      <p className="muted">{g.summary}: {g.gpus} GPUs, {usd(g.usd_per_hour)}/hour.</p>
      {g.fix && <p className="design-fix"><strong>Fix:</strong> {g.fix}</p>}
      {g.problems.length > 0 && g.verdict === "outside_constraints" && (
        <ul>{g.problems.map((p) => <li key={p.field + p.message}>{p.message}</li>)}</ul>
      )}
      {g.metrics && (
        <table className="design-metrics">
          <caption className="visually-hidden">Simulated on the exercise's traffic</caption>
          <thead><tr><th scope="col">Measure</th><th scope="col">Yours</th>{g.best && <th scope="col">Best answer</th>}<th scope="col">Target</th></tr></thead>
          <tbody>
            <tr><th scope="row">p99 TTFT</th><td>{ms(g.metrics.ttft_p99_s)}</td>{g.best && <td>{ms(g.best.metrics.ttft_p99_s)}</td>}<td>≤ {ms(g.slo.ttft_s ?? 1)}</td></tr>
            <tr><th scope="row">p99 TPOT</th><td>{ms(g.metrics.tpot_p99_s)}</td>{g.best && <td>{ms(g.best.metrics.tpot_p99_s)}</td>}<td>≤ {ms(g.slo.tpot_s ?? 0.1)}</td></tr>
            <tr><th scope="row">Requests served</th><td>{g.metrics.completed} / {g.metrics.num_requests}</td>{g.best && <td>{g.best.metrics.completed} / {g.best.metrics.num_requests}</td>}<td>all</td></tr>
            <tr><th scope="row">Cost per million output tokens</th><td>{usd(g.metrics.usd_per_million_tokens)}</td>{g.best && <td>{usd(g.best.metrics.usd_per_million_tokens)}</td>}<td>lowest</td></tr>
            <tr><th scope="row">GPUs · $/hour</th><td>{g.metrics.gpus} · {usd(g.metrics.usd_per_hour)}</td>{g.best && <td>{g.best.metrics.gpus} · {usd(g.best.metrics.usd_per_hour)}</td>}<td></td></tr>
          </tbody>
        </table>
      )}
      {g.binding && <p><strong>Binding constraint:</strong> {g.binding.detail}.</p>}
      {g.best && (
        <div className="design-best-answer">
          <h3>What the best answer did differently</h3>
          <p>{g.best.summary}.</p>
          {g.differences.length > 0 ? <ul>{g.differences.map((d) => <li key={d}>{d}</li>)}</ul> : <p>Nothing: yours is the same deployment.</p>}
        </div>
      )}
      <fieldset className="design-key-points">
        <legend>Rate your rationale: which of these did it cover?</legend>
        {attempt.key_points.map((point, index) => (
          <label key={point}>
            <input type="checkbox" checked={met.includes(index)} disabled={!signedIn}
              onChange={(e) => setMet(e.target.checked ? [...met, index] : met.filter((i) => i !== index))} /> {point}
          </label>
        ))}
        {signedIn ? (
          <button type="button" onClick={() => onRate(met)}>Save my rating</button>
        ) : <p className="muted"><Link to="/login">Sign in</Link> to keep your attempts and ratings.</p>}
        {attempt.rationale_score != null && <p>Rationale: {Math.round(attempt.rationale_score * 100)} % of the key points.</p>}
      </fieldset>
    </section>
  );
}

export function DesignExercisePage() {
  const { slug = "" } = useParams();
  const { user } = useAuth();
  const [exercise, setExercise] = useState<Detail | null>(null);
  const [missing, setMissing] = useState(false);
  const [v, set] = useQueryState(DEFAULTS);
  const [rationale, setRationale] = useState("");
  const [attempt, setAttempt] = useState<Attempt | null>(null);
  const [history, setHistory] = useState<Attempt[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<Detail>(`/design-exercises/${slug}/`).then(setExercise)
      .catch((caught) => { if (caught instanceof ApiError && caught.status === 404) setMissing(true); else throw caught; });
  }, [slug]);
  useEffect(() => {
    if (user) api<Attempt[]>(`/design-exercises/${slug}/attempts/`).then(setHistory).catch(() => setHistory([]));
  }, [slug, user]);

  if (missing) return <section><h1>No such exercise</h1><p><Link to="/practice/design">All design exercises</Link></p></section>;
  if (!exercise) return <p className="muted">Loading…</p>;
  const gpus = exercise.constraints.gpus;
  const body = deploymentBody(v, gpus[0]);
  const traffic = exercise.traffic as Record<string, unknown>;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const graded = await api<Attempt>(`/design-exercises/${slug}/attempts/`, { method: "POST", body: { deployment: body, rationale } });
      setAttempt(graded);
      if (graded.id != null) setHistory([graded, ...history]);
    } catch (caught) {
      if (caught instanceof ApiError) setError(caught); else throw caught;
    } finally {
      setBusy(false);
    }
  }

  async function rate(met: number[]) {
    if (!attempt?.id) return;
    const rated = await api<Attempt>(`/design-exercises/${slug}/attempts/${attempt.id}/`, { method: "PATCH", body: { key_points_met: met } });
    setAttempt(rated);
    setHistory(history.map((a) => (a.id === rated.id ? rated : a)));
  }

  const select = (name: string, label: string, options: [string, string][]) => (
    <label className="design-field"><span>{label}</span>
      <select name={name} value={v[name] || options[0][0]} onChange={(e) => set({ [name]: e.target.value })}>
        {options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
    </label>
  );
  const number = (name: string, label: string, min: number, max: number) => {
    const message = error?.fieldMessage(`deployment.${name}`) ?? error?.fieldMessage(name);
    return (
      <label className="design-field"><span>{label}</span>
        <input type="number" name={name} min={min} max={max} step={1} value={v[name]} aria-invalid={message ? true : undefined}
          onChange={(e) => set({ [name]: e.target.value })} />
        {message && <small role="alert" className="design-error">{message}</small>}
      </label>
    );
  };
  const check = (name: string, label: string) => (
    <label className="design-check"><input type="checkbox" name={name} checked={v[name] === "true"}
      onChange={(e) => set({ [name]: String(e.target.checked) })} /> {label}</label>
  );

  return (
    <section className="design">
      <p><Link to="/practice/design">Design exercises</Link> · {CATEGORY[exercise.category]} · {exercise.level}</p>
      <h1>{exercise.title}</h1>
      {Number(v.round) > 0 && <RoundClock seconds={Number(v.round)} />}
      <div className="prose" dangerouslySetInnerHTML={{ __html: exercise.brief_html }} />
      <dl className="design-facts">
        <dt>Model</dt><dd>{exercise.model}</dd>
        <dt>Traffic</dt><dd>{String(traffic.arrival_rate_per_s)} requests/s ({String(traffic.arrival ?? "poisson")}); prompts {lengthText(traffic.prompt_tokens)}; outputs {lengthText(traffic.output_tokens)}{traffic.shared_prefix_tokens ? `; ${String(traffic.shared_prefix_tokens)} shared prefix tokens in ${String(traffic.prefix_groups ?? 1)} groups` : ""}. Graded on {String(traffic.num_requests)} simulated requests.</dd>
        <dt>SLO</dt><dd>p99 TTFT ≤ {ms(exercise.slo.ttft_s ?? 1)}, p99 TPOT ≤ {ms(exercise.slo.tpot_s ?? 0.1)}</dd>
        <dt>Constraints</dt><dd>GPUs on offer: {gpus.join(", ")}; at most {exercise.constraints.max_gpus} GPUs, {exercise.constraints.max_gpus_per_replica ?? 8} per replica{exercise.constraints.budget_usd_per_hour != null ? `; budget ${usd(exercise.constraints.budget_usd_per_hour)}/hour` : ""}</dd>
      </dl>
      <form onSubmit={submit} className="design-form" aria-label="Your deployment">
        {select("gpu", "GPU", gpus.map((g) => [g, g]))}
        {select("tensor_parallel", "Tensor parallel", ["1", "2", "4", "8"].map((t) => [t, t]))}
        {v.split === "true" ? <>
          {number("prefill_replicas", "Prefill replicas", 1, 15)}{number("decode_replicas", "Decode replicas", 1, 15)}
          {select("prefill_tensor_parallel", "Prefill pool TP", [["", "as tensor parallel"], ...["1", "2", "4", "8"].map((t): [string, string] => [t, t])])}
          {select("decode_tensor_parallel", "Decode pool TP", [["", "as tensor parallel"], ...["1", "2", "4", "8"].map((t): [string, string] => [t, t])])}
        </> : number("replicas", "Replicas", 1, 16)}
        {select("weight_dtype", "Weights", [["bf16", "BF16"], ["fp8", "FP8"], ["int8", "INT8"], ["int4", "INT4"], ["fp4", "FP4"]])}
        {select("kv_dtype", "KV cache", [["bf16", "BF16"], ["fp8", "FP8"]])}
        {number("max_num_seqs", "max_num_seqs", 1, 4096)}
        {number("max_num_batched_tokens", "max_num_batched_tokens", 16, 131072)}
        {select("router", "Router", [["round_robin", "round robin"], ["least_outstanding", "least outstanding"], ["prefix_aware", "prefix aware"]])}
        {check("chunked_prefill", "Chunked prefill")}
        {check("prefix_caching", "Prefix caching")}
        {check("split", "Split prefill and decode")}
        <label className="design-field design-rationale"><span>Rationale (what you would say in the interview)</span>
          <textarea name="rationale" rows={4} maxLength={5000} value={rationale} onChange={(e) => setRationale(e.target.value)} />
        </label>
        <div className="design-actions">
          <button type="submit" disabled={busy}>{busy ? "Simulating…" : "Grade my deployment"}</button>
          <Link to={labLink(exercise, body)}>Open these settings in the Lab</Link>
        </div>
        {error && !Object.keys(error.body.fields ?? {}).some((f) => f.startsWith("deployment.")) && <p role="alert" className="error">{error.message}</p>}
      </form>
      <div aria-live="polite">{attempt && <GradePanel attempt={attempt} onRate={rate} signedIn={Boolean(user)} />}</div>
      {history.length > 0 && (
        <section aria-labelledby="design-history">
          <h2 id="design-history">Your attempts</h2>
          <ol className="design-history">
            {history.map((a) => (
              <li key={a.id}><button type="button" className="link-button" onClick={() => setAttempt(a)}>
                {a.grade.score}/100 · {VERDICT[a.grade.verdict]} · {a.grade.summary}</button>
                {a.created_at && <span className="muted"> · {new Date(a.created_at).toLocaleString()}</span>}</li>
            ))}
          </ol>
        </section>
      )}
      <details><summary>Sources</summary><ul>{exercise.sources.map((s) => <li key={s}>{s}</li>)}</ul></details>
    </section>
  );
}
