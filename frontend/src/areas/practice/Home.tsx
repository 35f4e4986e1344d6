import { useEffect, useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { api, ApiError, type Page } from "../../lib/api";
import { useAuth } from "../../lib/auth";
import { KIND_LABELS, KINDS, LEVELS, percent, practiceApi, rememberToken, type Session } from "./api";

interface PartRef { slug: string; title: string }
interface SessionRow { id: string; mode: string; created_at: string; size: number; answered: number; score: number | null }

function useOptions() {
  const [parts, setParts] = useState<PartRef[]>([]);
  const [topics, setTopics] = useState<{ slug: string; title: string; question_count: number }[]>([]);
  useEffect(() => {
    api<Page<PartRef> | PartRef[]>("/parts/?page_size=100").then((data) => setParts(Array.isArray(data) ? data : data.results)).catch(() => setParts([]));
    api<Page<{ slug: string; title: string; question_count: number }>>("/topics/?page_size=500").then((data) => setTopics(data.results)).catch(() => setTopics([]));
  }, []);
  return { parts, topics };
}

async function startSession(body: Record<string, unknown>): Promise<Session> {
  const session = await practiceApi<Session>("/practice/sessions/", { method: "POST", body });
  rememberToken(session.id, session.session_token);
  return session;
}

function fieldError(error: unknown): string {
  if (error instanceof ApiError) return Object.values(error.body.fields ?? {})[0]?.[0] ?? error.message;
  return String(error);
}

export function PracticeHome() {
  const navigate = useNavigate();
  const { user } = useAuth();
  const { parts, topics } = useOptions();
  const [params, setParams] = useSearchParams();
  const chapter = params.get("chapter") ?? "";
  const [chapterTitle, setChapterTitle] = useState("");
  const [part, setPart] = useState("");
  // a link may choose them: the study plan's practice set (?topic=…&level=…)
  const [topic, setTopic] = useState(params.get("topic") ?? "");
  const [level, setLevel] = useState(params.get("level") ?? "");
  const [kind, setKind] = useState("");
  const [size, setSize] = useState(10);
  const [error, setError] = useState("");
  const [history, setHistory] = useState<SessionRow[]>([]);

  useEffect(() => {
    setChapterTitle("");
    if (!chapter) return;
    api<{ title: string }>(`/chapters/${encodeURIComponent(chapter)}/`)
      .then((data) => setChapterTitle(data.title))
      .catch(() => setError("No such chapter; practising across all chapters instead."));
  }, [chapter]);

  useEffect(() => {
    if (user) api<Page<SessionRow>>("/practice/sessions/?page_size=10").then((data) => setHistory(data.results)).catch(() => setHistory([]));
  }, [user]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError("");
    const body: Record<string, unknown> = { size };
    if (chapter && chapterTitle) body.chapter = [chapter];
    if (part) body.part = [part];
    if (topic) body.topic = [topic];
    if (level) body.level = [level];
    if (kind) body.kind = [kind];
    try {
      const session = await startSession(body);
      navigate(`/practice/session/${session.id}`);
    } catch (caught) {
      setError(fieldError(caught));
    }
  }

  return (
    <section>
      <h1>Practice</h1>
      <p className="muted">
        Auto-checked questions are graded on the server; open questions: reveal the model answer, then rate yourself.
        Also: <Link to="/practice/interview">interview mode</Link> · <Link to="/practice/diagnosis">the diagnosis game</Link> · <Link to="/practice/incidents">the Kubernetes incident game</Link> ·{" "}
        <Link to="/practice/checks">drag-and-drop checks</Link> · <Link to="/practice/design">design exercises</Link>
      </p>
      {chapter && chapterTitle && (
        <p className="chapter-filter" data-testid="chapter-filter">
          Questions from the chapter <Link to={`/learn/${chapter}`}>{chapterTitle}</Link>{" "}
          <button type="button" onClick={() => setParams({})} aria-label={`Practise all chapters, not only ${chapterTitle}`}>
            All chapters
          </button>
        </p>
      )}
      <form className="practice-filters" onSubmit={submit}>
        {parts.length > 0 && (
          <label className="field"><span>Part</span>
            <select value={part} onChange={(event) => setPart(event.target.value)}>
              <option value="">Any part</option>
              {parts.map((item) => <option key={item.slug} value={item.slug}>{item.title}</option>)}
            </select>
          </label>
        )}
        <label className="field"><span>Topic</span>
          <select value={topic} onChange={(event) => setTopic(event.target.value)}>
            <option value="">Any topic</option>
            {topics.map((item) => <option key={item.slug} value={item.slug}>{item.title} ({item.question_count})</option>)}
          </select>
        </label>
        <label className="field"><span>Level</span>
          <select value={level} onChange={(event) => setLevel(event.target.value)}>
            <option value="">Any level</option>
            {LEVELS.map((item) => <option key={item} value={item}>{item}</option>)}
          </select>
        </label>
        <label className="field"><span>Kind</span>
          <select value={kind} onChange={(event) => setKind(event.target.value)}>
            <option value="">Any kind</option>
            {KINDS.map((item) => <option key={item} value={item}>{KIND_LABELS[item]}</option>)}
          </select>
        </label>
        <label className="field"><span>Questions</span>
          <input type="number" min={1} max={50} value={size} onChange={(event) => setSize(Number(event.target.value))} />
        </label>
        <button type="submit" className="primary">Start practice</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      {history.length > 0 && (
        <>
          <h2>Your recent sessions</h2>
          <ul>
            {history.map((row) => (
              <li key={row.id}>
                <Link to={`/practice/session/${row.id}/summary`}>{new Date(row.created_at).toLocaleString()}</Link> · {row.mode} · {row.answered}/{row.size} · {percent(row.score)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function InterviewHome() {
  const navigate = useNavigate();
  const [size, setSize] = useState(8);
  const [secondsPerQuestion, setSecondsPerQuestion] = useState(120);
  const [error, setError] = useState("");
  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      const session = await startSession({ mode: "interview", size, seconds_per_question: secondsPerQuestion });
      navigate(`/practice/session/${session.id}`);
    } catch (caught) {
      setError(fieldError(caught));
    }
  }
  return (
    <section>
      <h1>Interview mode</h1>
      <p className="muted">A timed, mixed set: spread over core, mid, senior and staff levels and across distinct topics. A final report follows.</p>
      <form className="practice-filters" onSubmit={submit}>
        <label className="field"><span>Questions</span>
          <input type="number" min={1} max={50} value={size} onChange={(event) => setSize(Number(event.target.value))} />
        </label>
        <label className="field"><span>Seconds per question</span>
          <input type="number" min={10} max={3600} value={secondsPerQuestion} onChange={(event) => setSecondsPerQuestion(Number(event.target.value))} />
        </label>
        <button type="submit" className="primary">Start interview</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      <DesignRound />
    </section>
  );
}

const DESIGN_ROUND_MINUTES = 25;

/** The interview's design round: a capacity-planning exercise not yet passed, on the clock. */
function DesignRound() {
  const navigate = useNavigate();
  const [error, setError] = useState("");
  async function start() {
    try {
      const page = await api<{ results: { slug: string; best_score: number | null }[] }>("/design-exercises/?page_size=100");
      const open = page.results.filter((e) => (e.best_score ?? 0) < 100);
      const pool = open.length ? open : page.results;
      if (!pool.length) { setError("No design exercises yet."); return; }
      const pick = pool[Math.floor(Math.random() * pool.length)];
      navigate(`/practice/design/${pick.slug}?round=${DESIGN_ROUND_MINUTES * 60}`);
    } catch (caught) {
      setError(fieldError(caught));
    }
  }
  return (
    <section aria-labelledby="design-round">
      <h2 id="design-round">Design round</h2>
      <p className="muted">The capacity-planning question of a senior or staff interview: a model, traffic, SLOs and a
        GPU budget, {DESIGN_ROUND_MINUTES} minutes on the clock. Your deployment is graded by the simulators.</p>
      <button type="button" onClick={start}>Start a design round</button>
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
