// The drag-and-drop checks (questions tagged drag-and-drop), each answerable on its own page.
import { useEffect, useState } from "react";
import { Link, useParams } from "react-router-dom";
import { api, ApiError, type Page } from "../../lib/api";
import { KIND_LABELS, type CheckResult, type Question } from "./api";
import QuestionInput, { Prompt } from "./QuestionInput";
import Result from "./Result";

function firstLine(html: string): string {
  const text = new DOMParser().parseFromString(html, "text/html").body.textContent ?? "";
  return text.length > 140 ? `${text.slice(0, 137)}…` : text;
}

export function ChecksList() {
  const [checks, setChecks] = useState<Question[] | null>(null);
  useEffect(() => {
    api<Page<Question>>("/questions/?topic=drag-and-drop&page_size=100").then((data) => setChecks(data.results)).catch(() => setChecks([]));
  }, []);
  return (
    <section>
      <h1>Drag-and-drop checks</h1>
      <p className="muted">Build the request path, sort concepts, diagnose the bottleneck, match the fix. Drag, tap an item then its place, or use the keyboard (Space, arrows or number keys, Space).</p>
      {checks === null ? <p>Loading…</p> : (
        <ul className="cards" data-testid="checks-list">
          {checks.map((check) => (
            <li key={check.id}>
              <Link to={`/practice/checks/${check.id}`}>{firstLine(check.prompt_html)}</Link>
              <p className="muted">{KIND_LABELS[check.kind]} · {check.level}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function CheckPage() {
  const { id = "" } = useParams();
  const [question, setQuestion] = useState<Question | null>(null);
  const [result, setResult] = useState<CheckResult | null>(null);
  const [error, setError] = useState("");
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    api<Question>(`/questions/${id}/`).then(setQuestion).catch((caught) => setError(String(caught.message ?? caught)));
  }, [id]);
  async function submit(answer: Record<string, unknown>) {
    try {
      setResult(await api<CheckResult>(`/questions/${id}/check/`, { method: "POST", body: { answer } }));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    }
  }
  if (!question) return error ? <p className="error">{error}</p> : <p>Loading…</p>;
  return (
    <section className="runner" data-question-kind={question.kind}>
      <p><Link to="/practice/checks">← All checks</Link></p>
      <h1>Drag-and-drop check: {KIND_LABELS[question.kind].toLowerCase()}</h1>
      <Prompt question={question} />
      <QuestionInput key={`${question.id}-${attempt}`} question={question} disabled={result !== null} onSubmit={submit} error={error} />
      {result && (
        <>
          <Result result={result} />
          <button type="button" onClick={() => { setResult(null); setAttempt(attempt + 1); }}>Try again</button>
        </>
      )}
    </section>
  );
}
