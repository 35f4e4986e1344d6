// The session runner: one question at a time; interview sessions show a per-question timer.
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { ApiError, retryWhileUnavailable } from "../../lib/api";
import { KIND_LABELS, practiceApi, type Answer, type AnswerResult, type CheckResult, type Session } from "./api";
import QuestionInput, { Prompt, QuestionChapters } from "./QuestionInput";
import Result, { SelfRating } from "./Result";

function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const [field, messages] = Object.entries(error.body.fields ?? {})[0] ?? [];
    return field ? `${field}: ${messages[0]}` : error.message;
  }
  return String(error);
}

function Timer({ startedAt, seconds, stopped }: { startedAt: number; seconds: number; stopped: boolean }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (stopped) return;
    const id = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(id);
  }, [stopped]);
  const left = Math.round(seconds - (now - startedAt) / 1000);
  const shown = Math.abs(left);
  const text = `${left < 0 ? "+" : ""}${Math.floor(shown / 60)}:${String(shown % 60).padStart(2, "0")}`;
  return (
    <div className={`timer${left < 0 ? " over" : ""}`} role="timer" aria-label={left < 0 ? "Over time" : "Time left"} data-testid="timer">
      {left < 0 ? "Over time " : "Time left "}{text}
    </div>
  );
}

export default function Runner() {
  const { id = "" } = useParams();
  const navigate = useNavigate();
  const [session, setSession] = useState<Session | null>(null);
  const [index, setIndex] = useState(0);
  const [result, setResult] = useState<CheckResult | AnswerResult | null>(null);
  const [revealed, setRevealed] = useState<CheckResult | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [draft, setDraft] = useState("");
  const startedAt = useRef(Date.now());
  const nextButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    practiceApi<Session>(`/practice/sessions/${id}/`, { session: id })
      .then((loaded) => {
        setSession(loaded);
        const done = new Set(loaded.answers.map((answer) => answer.question));
        const first = loaded.questions.findIndex((question) => !done.has(question.id));
        if (first === -1) navigate(`/practice/session/${id}/summary`, { replace: true });
        else setIndex(first);
        startedAt.current = Date.now();
      })
      .catch((caught) => setError(errorText(caught)));
  }, [id, navigate]);

  useEffect(() => {
    if (result) nextButton.current?.focus();
  }, [result]);

  const question = session?.questions[index];

  const send = useCallback(async (payload: { answer?: Answer; self_rating?: string }) => {
    if (!question || busy) return;
    setBusy(true);
    setError("");
    try {
      const body = { question: question.id, ...payload, duration_ms: Date.now() - startedAt.current };
      setResult(await retryWhileUnavailable(
        () => practiceApi<AnswerResult>(`/practice/sessions/${id}/answers/`, { method: "POST", body, session: id }),
        (attempt, attempts) => setError(`The server is busy; sending your answer again (try ${attempt} of ${attempts})…`)));
      setError("");
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }, [question, busy, id]);

  async function reveal() {
    if (!question) return;
    try {
      setRevealed(await practiceApi<CheckResult>(`/questions/${question.id}/check/`, { method: "POST", body: {} }));
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  function next() {
    if (!session) return;
    if (index + 1 >= session.questions.length) {
      // Replace, so Back from the summary leaves the session instead of bouncing back to the summary.
      navigate(`/practice/session/${id}/summary`, { replace: true });
      return;
    }
    setIndex(index + 1);
    setResult(null);
    setRevealed(null);
    setDraft("");
    startedAt.current = Date.now();
  }

  if (!session) return error ? <p className="error" role="alert">{error}</p> : <p>Loading…</p>;
  if (!question) return <p>This session has no questions. <Link to="/practice">Start another</Link></p>;
  const interview = session.mode === "interview";

  return (
    <section className="runner" data-testid="runner" data-question-kind={question.kind} data-question-id={question.id}>
      <header className="runner-head">
        <h1>{interview ? "Interview" : "Practice"}</h1>
        <span className="muted" data-testid="progress">Question {index + 1} of {session.questions.length}</span>
        {interview && session.seconds_per_question && (
          <Timer key={question.id} startedAt={startedAt.current} seconds={session.seconds_per_question} stopped={result !== null} />
        )}
      </header>
      <div className="progress" aria-hidden="true"><span style={{ width: `${(100 * index) / session.questions.length}%` }} /></div>
      <p className="question-meta muted">
        <span className={`level-badge level-${question.level}`}>{question.level}</span> · {KIND_LABELS[question.kind]} · {question.topics.join(", ")}
      </p>
      <QuestionChapters question={question} />
      <Prompt question={question} />
      {question.kind === "open" ? (
        <>
          <div className="question-input">
            <label className="field draft">
              <span>Your answer (a draft for yourself: you rate it against the model answer)</span>
              <textarea rows={5} value={draft} onChange={(event) => setDraft(event.target.value)} readOnly={revealed !== null} data-testid="draft" />
            </label>
            {!revealed && <button type="button" className="primary" onClick={reveal}>Reveal answer</button>}
          </div>
          {revealed && !result && (
            <>
              <Result result={revealed} />
              <SelfRating onRate={(rating) => send({ self_rating: rating })} disabled={busy} />
            </>
          )}
        </>
      ) : (
        <QuestionInput key={question.id} question={question} disabled={result !== null || busy} onSubmit={(answer) => send({ answer })} />
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {result && (
        <>
          {"over_time" in result && result.over_time && (
            <p className="error" data-testid="late">Over the time limit: this answer is late and scores half.</p>
          )}
          <Result result={result} selfRating={"self_rating" in result && result.self_rating ? result.self_rating : undefined}
            late={"over_time" in result && result.over_time} />
          <button type="button" className="primary" ref={nextButton} onClick={next}>
            {index + 1 >= session.questions.length ? (interview ? "See the report" : "See summary") : "Next question"}
          </button>
        </>
      )}
    </section>
  );
}
