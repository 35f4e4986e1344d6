// Sweeps: build a grid of configurations, run it on the workers, watch progress, read the Pareto frontier.
import { useEffect, useMemo, useState } from "react";
import { Link, Route, Routes, useNavigate, useParams } from "react-router-dom";
import { api, ApiError, Page } from "../../../lib/api";
import { useAuth } from "../../../lib/auth";
import { ScatterPlot } from "../charts";
import { fmtNum, useCatalog } from "../lib";

interface Job {
  id: string; status: string; progress: number; total_points: number; done_points: number; error: string; created_at: string;
}
interface Point { index: number; params: Record<string, unknown>; metrics: Record<string, any>; meets_slo: boolean }
// Stage one of a two-stage sweep (sweeps.sweep_screen); {mode: "exhaustive"} when every point is simulated.
interface Screen {
  mode: "two_stage" | "exhaustive"; grid_points: number; simulated: number; feasible?: number; meets_slo?: number;
  seconds?: number; disaggregated?: number; excluded?: number; excluded_example?: string; agreement?: { simulated: number; same_verdict: number; engine_meets_slo: number; screen_meets_slo: number };
}
interface JobDetail extends Job {
  results: Point[];
  results_count: number;
  next_page: number | null;
  screen: Screen;
  pareto: { index: number; usd_per_million_tokens: number; ttft_p99_s: number; tpot_p99_s: number; layout: string; disaggregated: boolean; gpus: number }[];
  recommendation: null | {
    index: number; command: string; reason: string; params: Record<string, unknown>; replicas: number; router: string;
    layout: string; disaggregated: boolean; compared?: { colocated: BestOfKind | null; disaggregated: BestOfKind | null };
  };
}
// The best colocated or disaggregated point of a sweep with P/D layouts (sweeps._compare_layouts).
interface BestOfKind {
  index: number; layout: string; gpus: number; usd_per_million_tokens: number; ttft_p99_s: number; tpot_p99_s: number;
  meets_slo: boolean; why: string;
}

const GRID_FIELDS: { key: string; label: string; kind: "int" | "str" | "bool"; initial: string }[] = [
  { key: "gpu", label: "GPUs", kind: "str", initial: "h100-sxm, a100-80gb" },
  { key: "tensor_parallel", label: "Tensor parallel", kind: "int", initial: "1, 2" },
  { key: "replicas", label: "Replicas", kind: "int", initial: "" },
  { key: "max_num_seqs", label: "max_num_seqs", kind: "int", initial: "64, 256" },
  { key: "max_num_batched_tokens", label: "max_num_batched_tokens", kind: "int", initial: "" },
  { key: "chunked_prefill", label: "Chunked prefill", kind: "bool", initial: "" },
  { key: "router", label: "Router", kind: "str", initial: "" },
  { key: "weight_dtype", label: "Weight dtype", kind: "str", initial: "" },
  { key: "prefill_replicas", label: "P/D: prefill replicas", kind: "int", initial: "" },
  { key: "decode_replicas", label: "P/D: decode replicas", kind: "int", initial: "" },
  { key: "kv_transfer", label: "P/D: KV transfer (nvlink, rdma)", kind: "str", initial: "" },
  { key: "prefill_tensor_parallel", label: "P/D: prefill pool TP (blank: tensor parallel)", kind: "int", initial: "" },
  { key: "decode_tensor_parallel", label: "P/D: decode pool TP (blank: tensor parallel)", kind: "int", initial: "" },
];
// Knobs of one kind of layout only (engine/grid.py): with P/D knobs the grid is its colocated points, then its
// disaggregated ones.
const PD_ONLY = ["prefill_replicas", "decode_replicas", "kv_transfer", "prefill_tensor_parallel",
  "decode_tensor_parallel"];
const COLOCATED_ONLY = ["replicas"];

function gridSize(grid: Record<string, string>): number {
  const product = (skip: string[]) => GRID_FIELDS.reduce((n, f) => {
    const len = skip.includes(f.key) ? 0 : parseList(grid[f.key], f.kind).length;
    return len ? n * len : n;
  }, 1);
  const pd = parseList(grid.prefill_replicas, "int").length > 0 || parseList(grid.decode_replicas, "int").length > 0;
  return pd ? product(PD_ONLY) + product(COLOCATED_ONLY) : product([]);
}

function parseList(text: string, kind: string): unknown[] {
  return text.split(",").map((s) => s.trim()).filter(Boolean).map((s) =>
    kind === "int" ? Number(s) : kind === "bool" ? s === "true" : s);
}

export default function SweepsArea() {
  return (
    <Routes>
      <Route index element={<SweepBuilder />} />
      <Route path=":id" element={<SweepJobPage />} />
    </Routes>
  );
}

function SweepBuilder() {
  const navigate = useNavigate();
  const [grid, setGrid] = useState<Record<string, string>>(Object.fromEntries(GRID_FIELDS.map((f) => [f.key, f.initial])));
  const [base, setBase] = useState({ model: "llama-3.1-8b", rate: "10", num_requests: "200", prompt: "512", output: "128", ttft: "1", tpot: "0.1" });
  const [mode, setMode] = useState<"two_stage" | "exhaustive">("two_stage");
  const [budget, setBudget] = useState({ max_gpus: "", max_usd_per_hour: "" });
  const [error, setError] = useState<ApiError | null>(null);
  const [jobs, setJobs] = useState<Job[]>([]);
  const { user, loading } = useAuth();
  const { models } = useCatalog();
  // Sweeps run on the workers under an account: a signed-out attempt is answered with a way to sign in.
  const [signInNeeded, setSignInNeeded] = useState(false);

  useEffect(() => {
    if (loading || !user) return;
    api<Page<Job>>("/simulators/sweeps/").then((p) => setJobs(p.results)).catch(() => setJobs([]));
  }, [user, loading]);

  const points = useMemo(() => gridSize(grid), [grid]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    if (!loading && !user) {
      setSignInNeeded(true);
      return;
    }
    const g: Record<string, unknown[]> = {};
    for (const f of GRID_FIELDS) {
      const values = parseList(grid[f.key], f.kind);
      if (values.length) g[f.key] = values;
    }
    const body = {
      model: base.model, gpu: "h100-sxm", grid: g, mode,
      slo: { ttft_s: Number(base.ttft), tpot_s: Number(base.tpot) },
      workload: { arrival_rate_per_s: Number(base.rate), num_requests: Number(base.num_requests),
        prompt_tokens: Number(base.prompt), output_tokens: Number(base.output) },
      ...(budget.max_gpus.trim() ? { max_gpus: Number(budget.max_gpus) } : {}),
      ...(budget.max_usd_per_hour.trim() ? { max_usd_per_hour: Number(budget.max_usd_per_hour) } : {}),
    };
    try {
      const job = await api<Job>("/simulators/sweeps/", { method: "POST", body });
      navigate(job.id);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.body.error === "not_authenticated")) setSignInNeeded(true);
      else if (err instanceof ApiError) setError(err);
      else throw err;
    }
  }

  const baseField = (k: keyof typeof base, label: string) => (
    <label className="field">{label}<input value={base[k]} onChange={(e) => setBase({ ...base, [k]: e.target.value })} /></label>
  );

  return (
    <section>
      <h1>Configuration sweep</h1>
      <p className="muted">Every combination of the listed values is priced by the closed-form models in milliseconds;
        the discrete-event engine then simulates the candidates near their cost–latency frontier on the background
        workers (or every combination, exhaustively), and the cheapest simulated configuration meeting the SLO (p99 TTFT
        and p99 TPOT) is recommended. Give prefill and decode replicas to search prefill/decode-disaggregated layouts
        beside the colocated ones (both pools run the same tensor parallel; the engine simulates every P/D point), and
        a GPU or $/hour budget to leave bigger deployments out.</p>
      <form onSubmit={submit} style={{ display: "grid", gridTemplateColumns: "repeat(auto-fill, minmax(14rem, 1fr))", gap: "0.6rem" }}>
        <label className="field">Model
          <select name="model" aria-label="Model" value={base.model} onChange={(e) => setBase({ ...base, model: e.target.value })}>
            {!models.some((m) => m.slug === base.model) && <option value={base.model}>{base.model}</option>}
            {models.map((m) => <option key={m.slug} value={m.slug}>{m.name}</option>)}
          </select>
          {error?.fieldMessage("model") && <span role="alert">{error.fieldMessage("model")}</span>}
        </label>
        {baseField("rate", "Arrival rate (req/s)")}
        {baseField("num_requests", "Requests per point")}
        {baseField("prompt", "Prompt tokens")}
        {baseField("output", "Output tokens")}
        {baseField("ttft", "SLO: p99 TTFT (s)")}
        {baseField("tpot", "SLO: p99 TPOT (s)")}
        {GRID_FIELDS.map((f) => (
          <label key={f.key} className="field">{f.label} (comma-separated)
            <input value={grid[f.key]} onChange={(e) => setGrid({ ...grid, [f.key]: e.target.value })} />
            {error?.fieldMessage(`grid.${f.key}`) && <span role="alert">{error.fieldMessage(`grid.${f.key}`)}</span>}
          </label>
        ))}
        <label className="field">Budget: at most GPUs
          <input inputMode="numeric" value={budget.max_gpus} placeholder="no limit"
            onChange={(e) => setBudget({ ...budget, max_gpus: e.target.value })} />
          {error?.fieldMessage("max_gpus") && <span role="alert">{error.fieldMessage("max_gpus")}</span>}
        </label>
        <label className="field">Budget: at most $ / hour
          <input inputMode="decimal" value={budget.max_usd_per_hour} placeholder="no limit"
            onChange={(e) => setBudget({ ...budget, max_usd_per_hour: e.target.value })} />
          {error?.fieldMessage("max_usd_per_hour") && <span role="alert">{error.fieldMessage("max_usd_per_hour")}</span>}
        </label>
        <label className="field">Search
          <select value={mode} onChange={(e) => setMode(e.target.value as "two_stage" | "exhaustive")}>
            <option value="two_stage">Two-stage: screen all, simulate the candidates</option>
            <option value="exhaustive">Exhaustive: simulate every point</option>
          </select>
        </label>
        <p>{points.toLocaleString()} points</p>
        <button type="submit">Run sweep</button>
      </form>
      {error && <p role="alert">{error.body.detail}</p>}
      {(signInNeeded || (!loading && !user)) && (
        <p className={signInNeeded ? "error" : "muted"} role={signInNeeded ? "alert" : undefined} data-testid="sweep-sign-in">
          Sweeps run on the background workers under your account.{" "}
          <Link to="/login?next=/lab/sweeps">Log in</Link> or <Link to="/signup?next=/lab/sweeps">sign up</Link> to run one;
          the single-configuration simulators in the <Link to="/lab">Lab</Link> need no account.
        </p>
      )}
      {jobs.length > 0 && (
        <>
          <h2>Your sweeps</h2>
          <ul>{jobs.map((j) => <li key={j.id}><Link to={j.id}>{new Date(j.created_at).toLocaleString()}</Link> — {j.status}, {j.total_points} points</li>)}</ul>
        </>
      )}
    </section>
  );
}

const COLUMNS: { key: string; label: string; get: (p: Point) => number | string }[] = [
  { key: "index", label: "#", get: (p) => p.index },
  { key: "config", label: "Configuration", get: (p) => Object.entries(p.params).map(([k, v]) => `${k}=${v}`).join(" ") },
  { key: "ttft", label: "p99 TTFT (ms)", get: (p) => (p.metrics.feasible ? p.metrics.ttft_s.p99 * 1000 : Infinity) },
  { key: "tpot", label: "p99 TPOT (ms)", get: (p) => (p.metrics.feasible ? p.metrics.tpot_s.p99 * 1000 : Infinity) },
  { key: "tps", label: "tokens/s", get: (p) => (p.metrics.feasible ? p.metrics.output_tokens_per_s : 0) },
  { key: "cost", label: "$ / M tokens", get: (p) => (p.metrics.feasible ? p.metrics.usd_per_million_tokens : Infinity) },
  { key: "screen_ttft", label: "Screen p99 TTFT (ms)", get: (p) => (p.metrics.screen?.feasible ? p.metrics.screen.ttft_p99_s * 1000 : Infinity) },
  { key: "screen_cost", label: "Screen $ / M", get: (p) => (p.metrics.screen?.feasible ? p.metrics.screen.usd_per_million_tokens : Infinity) },
  { key: "slo", label: "Meets SLO", get: (p) => (p.meets_slo ? "yes" : p.metrics.feasible ? "no" : p.metrics.excluded ? "over budget" : "infeasible") },
];

function show(v: number | string): string {
  if (typeof v === "string") return v;
  if (!Number.isFinite(v)) return "—";
  return fmtNum(v);
}

function SweepJobPage() {
  const { id } = useParams();
  const [job, setJob] = useState<JobDetail | null>(null);
  const [sort, setSort] = useState<{ key: string; asc: boolean }>({ key: "index", asc: true });
  const [error, setError] = useState("");

  useEffect(() => {
    let stop = false;
    let timer: number | undefined;
    let loaded = "";
    // Every page of the results, for the chart and the sorted table (at most 10,000 points, 1,000 a page).
    async function load(): Promise<JobDetail> {
      let detail = await api<JobDetail>(`/simulators/sweeps/${id}/?page_size=1000`);
      const results = [...detail.results];
      while (detail.next_page !== null && !stop) {
        detail = await api<JobDetail>(`/simulators/sweeps/${id}/?page_size=1000&page=${detail.next_page}`);
        results.push(...detail.results);
      }
      return { ...detail, results };
    }
    // The cheap status is polled each second; the results are read again only when it says they changed.
    async function poll() {
      try {
        const status = await api<Job>(`/simulators/sweeps/${id}/status/`);
        if (stop) return;
        const seen = `${status.status}/${status.done_points}`;
        if (seen !== loaded) {
          const data = await load();
          if (stop) return;
          loaded = seen;
          setJob(data);
        } else {
          setJob((previous) => previous && { ...previous, ...status });
        }
        if (status.status === "queued" || status.status === "running") timer = window.setTimeout(poll, 1000);
      } catch (err) {
        if (!stop) setError(err instanceof ApiError ? err.body.detail : String(err));
      }
    }
    poll();
    return () => { stop = true; window.clearTimeout(timer); };
  }, [id]);

  if (error) return <p role="alert">{error}</p>;
  if (!job) return <p>Loading…</p>;
  const col = COLUMNS.find((c) => c.key === sort.key) ?? COLUMNS[0];
  const rows = [...job.results].sort((a, b) => {
    const x = col.get(a), y = col.get(b);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return sort.asc ? c : -c;
  });
  const onFrontier = new Set(job.pareto.map((p) => p.index));
  const feasible = job.results.filter((p) => p.metrics.feasible);
  const active = job.status === "queued" || job.status === "running";

  async function cancel() {
    await api(`/simulators/sweeps/${id}/cancel/`, { method: "POST" });
    setJob({ ...job!, status: "cancelled" });
  }

  return (
    <section>
      <p><Link to="..">← Sweeps</Link></p>
      <h1>Sweep <span data-testid="sweep-status">{job.status}</span></h1>
      <div className="progress" role="progressbar" aria-label="Sweep progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(job.progress * 100)}>
        <div style={{ width: `${job.progress * 100}%`, height: "100%", background: "var(--accent)" }} />
      </div>
      <p data-testid="sweep-progress">{job.done_points} / {job.total_points} points simulated ({Math.round(job.progress * 100)} %)</p>
      {job.screen?.mode === "two_stage" && (
        <p data-testid="sweep-screen">
          The closed-form screen priced all {job.screen.grid_points.toLocaleString()} points in {job.screen.seconds} s
          ({job.screen.feasible?.toLocaleString()} fit, {job.screen.meets_slo?.toLocaleString()} meet the SLO by its
          estimate); the engine simulates the {job.screen.simulated} nearest its frontier, and the frontier and
          recommendation come from the engine.
          {job.screen.agreement && ` Screen and engine gave the same SLO verdict on ${job.screen.agreement.same_verdict} of ${job.screen.agreement.simulated}.`}
        </p>
      )}
      {(job.screen?.excluded || job.screen?.disaggregated) ? (
        <p data-testid="sweep-layouts">
          {job.screen.disaggregated ? `${job.screen.disaggregated} prefill/decode-disaggregated layouts, each simulated by the engine. ` : ""}
          {job.screen.excluded ? `${job.screen.excluded} points over the budget or the replica limit, not run (e.g. ${job.screen.excluded_example}).` : ""}
        </p>
      ) : null}
      {active && <button type="button" onClick={cancel}>Cancel sweep</button>}
      {job.error && <p role="alert">{job.error}</p>}
      {job.recommendation && (
        <div data-testid="recommendation">
          <h2>Recommended configuration</h2>
          <p>{job.recommendation.reason}</p>
          {job.recommendation.compared && <LayoutComparison compared={job.recommendation.compared} winner={job.recommendation.index} />}
          <pre><code>{job.recommendation.command}</code></pre>
        </div>
      )}
      {job.pareto.length > 0 && (
        <div data-testid="sweep-frontier">
          <h2>Frontier</h2>
          <ol>{job.pareto.map((p) => (
            <li key={p.index}>#{p.index} {p.layout}{p.disaggregated ? " — disaggregated" : ""}: ${fmtNum(p.usd_per_million_tokens)} / M tokens,
              p99 TTFT {fmtNum(p.ttft_p99_s * 1000)} ms, p99 TPOT {fmtNum(p.tpot_p99_s * 1000)} ms</li>
          ))}</ol>
        </div>
      )}
      {job.status === "succeeded" && !job.recommendation && <p>No configuration meets the SLO; relax it or widen the grid.</p>}
      {feasible.length > 0 && (
        <ScatterPlot title="Cost vs p99 TTFT" xLabel="$ per million tokens" yLabel="p99 TTFT (s)" dots={feasible.map((p) => ({
          x: p.metrics.usd_per_million_tokens, y: p.metrics.ttft_s.p99, key: p.index, highlight: onFrontier.has(p.index),
          label: `#${p.index}: $${p.metrics.usd_per_million_tokens.toFixed(3)}/M, ${(p.metrics.ttft_s.p99 * 1000).toFixed(0)} ms`,
        }))} />
      )}
      <table data-testid="sweep-results">
        <thead><tr>{COLUMNS.map((c) => (
          <th key={c.key}><button type="button" onClick={() => setSort({ key: c.key, asc: sort.key === c.key ? !sort.asc : true })}>
            {c.label}{sort.key === c.key ? (sort.asc ? " ▲" : " ▼") : ""}</button></th>
        ))}</tr></thead>
        <tbody>{rows.map((p) => (
          <tr key={p.index}>{COLUMNS.map((c) => <td key={c.key}>{show(c.get(p))}</td>)}</tr>
        ))}</tbody>
      </table>
    </section>
  );
}

function LayoutComparison({ compared, winner }: { compared: { colocated: BestOfKind | null; disaggregated: BestOfKind | null }; winner: number }) {
  // A list, not a table: it reflows on a phone.
  return (
    <>
      <h3>Best colocated vs best disaggregated layout</h3>
      <ul data-testid="layout-comparison">{(["colocated", "disaggregated"] as const).map((kind) => {
        const b = compared[kind];
        return (
          <li key={kind}>
            <strong>Best {kind}{b && b.index === winner ? " (wins)" : ""}:</strong>{" "}
            {b ? <>{b.layout} — p99 TTFT {fmtNum(b.ttft_p99_s * 1000)} ms, p99 TPOT {fmtNum(b.tpot_p99_s * 1000)} ms,
              ${fmtNum(b.usd_per_million_tokens)} / M tokens: {b.why}</> : "none ran within the budget"}
          </li>
        );
      })}</ul>
    </>
  );
}
