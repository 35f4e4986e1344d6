// One question on its own page (search results and links lead here): prompt, answer form, grading, explanation
// and the chapters it comes from.
import { useEffect, useState } from "react";
import { Link, useParams } from "react-router-dom";
import { api, ApiError } from "../../lib/api";
import { KIND_LABELS, type Answer, type CheckResult, type Question } from "./api";
import QuestionInput, { Prompt, QuestionChapters } from "./QuestionInput";
import Result from "./Result";

function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const [field, messages] = Object.entries(error.body.fields ?? {})[0] ?? [];
    return field ? `${field}: ${Array.isArray(messages) ? messages[0] : JSON.stringify(messages)}` : error.message;
  }
  return String(error);
}

export default function QuestionPage() {
  const { id = "" } = useParams();
  const [question, setQuestion] = useState<Question | null>(null);
  const [result, setResult] = useState<CheckResult | null>(null);
  const [error, setError] = useState("");
  const [missing, setMissing] = useState(false);
  const [draft, setDraft] = useState("");
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setQuestion(null); setResult(null); setError(""); setMissing(false); setDraft("");
    api<Question>(`/questions/${encodeURIComponent(id)}/`)
      .then((data) => {
        if (!live) return;
        setQuestion(data);
        const text = document.createElement("div");
        text.innerHTML = data.prompt_html;
        const title = (text.textContent ?? "").trim().replace(/\s+/g, " ");
        document.title = `${title.length > 60 ? `${title.slice(0, 57)}…` : title} · Practice · LLM-serving kit`;
      })
      .catch((e) => { if (live) { if (e instanceof ApiError && e.status === 404) setMissing(true); else setError(errorText(e)); } });
    return () => { live = false; };
  }, [id]);

  async function check(answer?: Answer) {
    if (!question) return;
    setError("");
    try {
      setResult(await api<CheckResult>(`/questions/${question.id}/check/`, { method: "POST", body: answer ? { answer } : {} }));
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  if (missing) {
    return (
      <section>
        <h1>No such question</h1>
        <p>It may have been removed. <Link to="/practice">Start a practice session</Link> or search with <kbd>/</kbd>.</p>
      </section>
    );
  }
  if (!question) return error ? <p className="error" role="alert">{error}</p> : <p aria-busy="true">Loading…</p>;
  const first = question.chapters[0];
  return (
    <section className="runner question-page" data-testid="question-page" data-question-kind={question.kind} data-question-id={question.id}>
      <nav className="breadcrumbs" aria-label="Breadcrumb"><Link to="/practice">Practice</Link> › Question {question.id}</nav>
      <h1 className="visually-hidden">Question {question.id}</h1>
      <p className="question-meta muted">
        <span className={`level-badge level-${question.level}`}>{question.level}</span> · {KIND_LABELS[question.kind]} · {question.topics.join(", ")}
      </p>
      <Prompt question={question} />
      <QuestionChapters question={question} />
      {question.kind === "open" ? (
        <div className="question-input">
          <label className="field draft">
            <span>Your answer (a draft for yourself; it is not graded)</span>
            <textarea rows={5} value={draft} onChange={(event) => setDraft(event.target.value)} disabled={result !== null} />
          </label>
          {!result && <button type="button" className="primary" onClick={() => void check()}>Reveal the model answer</button>}
        </div>
      ) : (
        <QuestionInput key={`${question.id}-${attempt}`} question={question} disabled={result !== null} onSubmit={(answer) => void check(answer)} />
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {result && (
        <>
          <Result result={result} />
          <p className="prev-next">
            {question.kind !== "open" && (
              <button type="button" onClick={() => { setResult(null); setAttempt((n) => n + 1); }}>Try again</button>
            )}
            {first && <Link to={`/practice?chapter=${first.slug}`}>Practise “{first.title}”</Link>}
          </p>
        </>
      )}
    </section>
  );
}
