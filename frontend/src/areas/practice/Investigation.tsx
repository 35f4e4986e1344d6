// An investigation game: read the symptom, ask for up to five pieces of evidence, name the cause, see the reasoning
// with the evidence that tells. The diagnosis game and the Kubernetes incident game are both this, per `game`.
import { useEffect, useState } from "react";
import { Link } from "react-router-dom";
import type { components } from "../../generated/api";
import { api, ApiError, type Page } from "../../lib/api";
import { useAuth } from "../../lib/auth";
import { percent } from "./api";

type Schemas = components["schemas"];
type Scenario = Schemas["Diagnosis"];
type Attempt = Schemas["AttemptCreated"];
type Evidence = Schemas["EvidenceItem"];
type Result = Schemas["InvestigationResult"];

interface Props {
  game: Scenario["game"];
  title: string;
  intro: string;
  colours?: Record<string, string>;
}

interface Progress { index: number; tally: { right: number; played: number; score: number } }
const FRESH: Progress = { index: 0, tally: { right: 0, played: 0, score: 0 } };

/** Where this browser is in a game (the next scenario and the running tally), so a reload resumes it. */
function savedProgress(game: string): Progress {
  try {
    const saved = JSON.parse(localStorage.getItem(`investigation:${game}`) ?? "null") as Progress | null;
    return saved && Number.isInteger(saved.index) && saved.tally ? saved : FRESH;
  } catch {
    return FRESH;
  }
}

export default function Investigation({ game, title, intro, colours = {} }: Props) {
  const { user } = useAuth();
  const [scenarios, setScenarios] = useState<Scenario[] | null>(null);
  const [index, setIndex] = useState(() => savedProgress(game).index);
  const [attempt, setAttempt] = useState<Attempt | null>(null);
  const [seen, setSeen] = useState<Evidence[]>([]);
  const [result, setResult] = useState<Result | null>(null);
  const [picked, setPicked] = useState("");
  const [error, setError] = useState("");
  const [tally, setTally] = useState(() => savedProgress(game).tally);
  const save = (progress: Progress) => localStorage.setItem(`investigation:${game}`, JSON.stringify(progress));
  const [history, setHistory] = useState<Schemas["Attempt"][]>([]);

  useEffect(() => {
    api<Page<Scenario>>(`/diagnosis/?game=${game}&page_size=200`).then((data) => setScenarios(data.results)).catch(() => setScenarios([]));
  }, [game]);

  useEffect(() => {
    if (!user) return;
    api<Page<Schemas["Attempt"]>>("/diagnosis/attempts/?page_size=50")
      .then((data) => setHistory(data.results.filter((a) => a.game === game && a.finished_at)))
      .catch(() => setHistory([]));
  }, [user, game, result]);

  const headers = (a: Attempt): Record<string, string> => (a.token ? { "X-Attempt-Token": a.token } : {});

  async function current(): Promise<Attempt> {
    if (attempt) return attempt;
    const started = await api<Attempt>(`/diagnosis/${scenarios![index].slug}/attempts/`, { method: "POST" });
    setAttempt(started);
    return started;
  }

  async function ask(key: string) {
    setError("");
    try {
      const a = await current();
      const body = await api<Schemas["AskResult"]>(`/diagnosis/attempts/${a.id}/evidence/`, { method: "POST", body: { evidence: key }, headers: headers(a) });
      setAttempt({ ...a, asked: body.asked, remaining: body.remaining });
      setSeen((items) => (items.some((item) => item.key === body.item.key) ? items : [...items, body.item]));
    } catch (err) {
      setError(err instanceof ApiError ? err.fieldMessage("evidence") ?? err.message : String(err));
    }
  }

  async function name(value: string) {
    if (result) return;
    setError("");
    setPicked(value);
    try {
      const a = await current();
      const body = await api<Result>(`/diagnosis/attempts/${a.id}/answer/`, { method: "POST", body: { answer: value }, headers: headers(a) });
      setResult(body);
      const counted = { right: tally.right + (body.correct ? 1 : 0), played: tally.played + 1, score: tally.score + body.score };
      setTally(counted);
      save({ index: index + 1, tally: counted });  // a reload now resumes at the next scenario, this one counted once
    } catch (err) {
      setError(err instanceof ApiError ? err.fieldMessage("answer") ?? err.message : String(err));
    }
  }

  function restart() {
    save(FRESH);
    setTally(FRESH.tally);
    go(0);
  }

  function next() {
    go(index + 1);
  }

  function go(to: number) {
    setIndex(to);
    setAttempt(null);
    setSeen([]);
    setResult(null);
    setPicked("");
    setError("");
  }

  if (scenarios === null) return <p>Loading…</p>;
  if (!scenarios.length) return <section><h1>{title}</h1><p>No scenarios yet.</p></section>;
  if (index >= scenarios.length) {
    return (
      <section className="diagnosis investigation" data-testid="investigation">
        <h1>{title}</h1>
        <p data-testid="investigation-tally"><strong>Done: {tally.right} of {tally.played} right, score {tally.score.toFixed(1)}.</strong></p>
        <button type="button" className="primary" onClick={restart}>Play again from scenario 1</button>
      </section>
    );
  }
  const scenario = scenarios[index];
  const symptomOf = (slug: string) => scenarios.find((item) => item.slug === slug)?.symptom ?? slug;
  const remaining = attempt?.remaining ?? scenario.max_questions;
  const asked = new Set(attempt?.asked ?? []);
  return (
    <section className="diagnosis investigation" data-testid="investigation">
      <h1>{title}</h1>
      <p className="muted">{intro}</p>
      <p className="muted" data-testid="investigation-tally">
        {tally.right}/{tally.played} right, score {tally.score.toFixed(1)} · scenario {index + 1} of {scenarios.length}
        {(index > 0 || tally.played > 0) && <> · <button type="button" onClick={restart}>Start over</button></>}
      </p>
      {!user && (
        <p className="lab-note" data-testid="investigation-signed-out">
          Playing signed out: your scores are not kept on any account. <Link to={`/login?next=${encodeURIComponent(window.location.pathname)}`}>Log in</Link> or{" "}
          <Link to={`/signup?next=${encodeURIComponent(window.location.pathname)}`}>sign up</Link> to keep them.
        </p>
      )}
      <blockquote className="symptom"><strong>{scenario.symptom}</strong>{scenario.details && <p>{scenario.details}</p>}</blockquote>

      <h2>Ask for evidence <small className="muted" data-testid="investigation-remaining">({remaining} of {scenario.max_questions} questions left)</small></h2>
      <p className="muted">Each piece of evidence costs a tenth of the score; naming the cause from the symptom alone scores 1.</p>
      <div className="evidence-menu" role="group" aria-label="Evidence">
        {scenario.evidence.map((item) => (
          <button key={item.key} type="button" disabled={result !== null || asked.has(item.key) || remaining <= 0}
            onClick={() => ask(item.key)}>
            <span className="evidence-kind">{item.kind}</span> {item.label}
          </button>
        ))}
      </div>
      {seen.map((item) => (
        <figure key={item.key} className="evidence" data-testid={`evidence-${item.key}`}>
          <figcaption><span className="evidence-kind">{item.kind}</span> {item.label}</figcaption>
          <pre><code>{item.text}</code></pre>
        </figure>
      ))}

      <h2>Name the cause</h2>
      <div className="diagnosis-choices" role="group" aria-label="The cause">
        {scenario.choices.map((choice) => (
          <button key={choice.value} type="button" disabled={result !== null} aria-pressed={picked === choice.value}
            style={{ borderLeft: `6px solid ${colours[choice.value] ?? "var(--border)"}` }} onClick={() => name(choice.value)}>
            {choice.label}
          </button>
        ))}
      </div>
      {error && <p className="field-error" role="alert">{error}</p>}

      {result && (
        <section className={`result result-${result.correct ? "ok" : "wrong"}`} aria-live="polite" data-testid="investigation-result">
          <h3>{result.correct ? "Right" : `Not quite: it is ${result.answer_label.toLowerCase()}`}</h3>
          <p data-testid="investigation-score">
            Score {percent(result.score)} after {result.asked} question{result.asked === 1 ? "" : "s"}
            {user ? " · saved to your account" : " · on no account (signed out)"}
          </p>
          <div className="prose" dangerouslySetInnerHTML={{ __html: result.reasoning_html }} />
          <h4>The evidence that tells</h4>
          {result.telling.map((item) => (
            <figure key={item.key} className="evidence evidence-telling">
              <figcaption><span className="evidence-kind">{item.kind}</span> {item.label}</figcaption>
              <pre><code>{item.text}</code></pre>
            </figure>
          ))}
          {scenario.chapters.length > 0 && (
            <p>Read: {scenario.chapters.map((chapter, i) => <span key={chapter.slug}>{i > 0 && ", "}<Link to={chapter.url}>{chapter.title}</Link></span>)}</p>
          )}
          {index + 1 < scenarios.length ? (
            <button type="button" className="primary" onClick={next}>Next scenario</button>
          ) : (
            <p><strong>Done: {tally.right} of {tally.played} right, score {tally.score.toFixed(1)}.</strong></p>
          )}
        </section>
      )}
      {user && history.length > 0 && (
        <section className="investigation-history" data-testid="investigation-history">
          <h2>Your recent attempts</h2>
          <ul>
            {history.slice(0, 10).map((a) => (
              <li key={a.id}>{symptomOf(a.scenario)}: {a.correct ? "right" : "wrong"}, score {percent(a.score)} after {a.asked.length} question{a.asked.length === 1 ? "" : "s"}</li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}
