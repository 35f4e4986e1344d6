// Cards made from questions: the front shows what the question offers (options, items, bins, pairs, the unit) and the
// back shows the answer key, both from the public question API. A card's own text is only the prompt and the model
// answer, which is not enough to answer a "select all that apply" or an ordering.
import { useEffect, useState } from "react";
import { api, ApiError } from "../../lib/api";
import type { Answer, CheckResult, Question } from "../practice/api";

interface CardRef { card_id: number; source_type: string; source_id: number }

export interface QuestionCardState {
  question: Question | null;
  key: CheckResult | null;
  error: string;
  /** A question card whose question has not arrived: its front is not final, so nothing to tap is shown yet (the
   * choices or the answer box would otherwise push the buttons from under a finger already on its way). */
  loading: boolean;
}

/** Any valid answer: the check response carries the key (correct options, order, placement, pairs) whatever it is. */
function probe(question: Question): Answer | null {
  const { choices } = question;
  switch (question.kind) {
    case "single_choice": return { selected: [0] };
    case "multiple_choice": return { selected: [] };
    case "numeric": return { value: 0, unit: choices.unit ?? "" };
    case "ordering": return { order: choices.items ?? [] };
    case "categorize": return { placement: Object.fromEntries((choices.items ?? []).map((item) => [item, (choices.bins ?? [])[0]])) };
    case "matching": return { matches: Object.fromEntries((choices.left ?? []).map((left) => [left, (choices.right ?? [])[0]])) };
    default: return null;
  }
}

/** The question behind a card made from one, and its answer key. The key is fetched as soon as the question is known,
 * not on reveal, so the back shows at once (never "Loading the answer key…" first); a numeric card's key is fetched
 * only when it is revealed without a checked answer, since the check's verdict carries the same explanation and a
 * numeric card is mostly answered by checking. */
export function useQuestionCard(card: CardRef | undefined, { revealed, checked }: { revealed: boolean; checked: boolean }): QuestionCardState {
  const [state, setState] = useState<Omit<QuestionCardState, "loading"> & { id: number | null }>({ id: null, question: null, key: null, error: "" });
  const sourceId = card?.source_type === "question" ? card.source_id : null;

  useEffect(() => {
    if (sourceId === null) return;
    let live = true;
    api<Question>(`/questions/${sourceId}/`)
      .then((question) => live && setState({ id: sourceId, question, key: null, error: "" }))
      .catch((e: ApiError) => live && setState({ id: sourceId, question: null, key: null, error: e.message }));
    return () => { live = false; };
  }, [sourceId]);

  const question = state.id === sourceId ? state.question : null;
  const wantKey = question !== null && (question.kind !== "numeric" || (revealed && !checked));
  useEffect(() => {
    if (!wantKey || !question || state.key) return;
    const answer = probe(question);
    if (!answer) return;
    let live = true;
    api<CheckResult>(`/questions/${question.id}/check/`, { method: "POST", body: { answer } })
      .then((key) => live && setState((s) => (s.id === question.id ? { ...s, key } : s)))
      .catch((e: ApiError) => live && setState((s) => ({ ...s, error: e.message })));
    return () => { live = false; };
  }, [wantKey, question, state.key]);

  if (sourceId === null) return { question: null, key: null, error: "", loading: false };
  if (state.id !== sourceId) return { question: null, key: null, error: "", loading: true };
  return { question: state.question, key: state.key, error: state.error, loading: false };
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** The front: everything needed to answer. */
export function QuestionChoices({ question }: { question: Question }) {
  const { kind, choices } = question;
  if (kind === "single_choice" || kind === "multiple_choice") {
    return (
      <div className="card-choices" data-testid="card-choices">
        <p className="muted small">{kind === "single_choice" ? "Choose one:" : "Choose all that apply:"}</p>
        <ol className="card-options">
          {(choices.options ?? []).map((text, index) => <li key={text}><span className="letter">{LETTERS[index]}</span> {text}</li>)}
        </ol>
      </div>
    );
  }
  if (kind === "ordering") {
    return (
      <div className="card-choices" data-testid="card-choices">
        <p className="muted small">Put these in order:</p>
        <ul>{(choices.items ?? []).map((item) => <li key={item}>{item}</li>)}</ul>
      </div>
    );
  }
  if (kind === "categorize") {
    return (
      <div className="card-choices" data-testid="card-choices">
        <p className="muted small">Sort each item into {(choices.bins ?? []).map((bin) => `“${bin}”`).join(" or ")}:</p>
        <ul>{(choices.items ?? []).map((item) => <li key={item}>{item}</li>)}</ul>
      </div>
    );
  }
  if (kind === "matching") {
    return (
      <div className="card-choices card-matching" data-testid="card-choices">
        <p className="muted small">Match each item on the left with one on the right:</p>
        <div className="card-columns">
          <ol>{(choices.left ?? []).map((item) => <li key={item}>{item}</li>)}</ol>
          <ol type="a">{(choices.right ?? []).map((item) => <li key={item}>{item}</li>)}</ol>
        </div>
      </div>
    );
  }
  if (kind === "numeric" && choices.unit) {
    return <p className="muted small" data-testid="card-choices">Answer in {choices.unit} (or any unit of the same kind).</p>;
  }
  return null;
}

/** The back: the key, laid out like the front. */
export function AnswerKey({ question, result, error }: { question: Question; result: CheckResult | null; error: string }) {
  const { kind, choices } = question;
  if (kind === "open") return null;
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!result) return <p className="muted" aria-busy="true">Loading the answer key…</p>;
  const feedback = result.feedback as Record<string, unknown>;
  let body: React.ReactNode;
  if (kind === "single_choice" || kind === "multiple_choice") {
    const right = new Set((feedback.correct_options as number[] | undefined) ?? []);
    body = (
      <ol className="card-options">
        {(choices.options ?? []).map((text, index) => (
          <li key={text} className={right.has(index) ? "key-right" : "key-wrong"}>
            <span className="letter">{LETTERS[index]}</span> {right.has(index) ? "✓" : "✗"} {text}
          </li>
        ))}
      </ol>
    );
  } else if (kind === "ordering") {
    body = <ol>{((feedback.correct_order as string[] | undefined) ?? []).map((item) => <li key={item}>{item}</li>)}</ol>;
  } else if (kind === "categorize") {
    const placement = (feedback.correct_placement as Record<string, string> | undefined) ?? {};
    body = (
      <dl className="card-bins">
        {(choices.bins ?? []).map((bin) => (
          <div key={bin}>
            <dt>{bin}</dt>
            {Object.entries(placement).filter(([, b]) => b === bin).map(([item]) => <dd key={item}>{item}</dd>)}
          </div>
        ))}
      </dl>
    );
  } else if (kind === "matching") {
    const matches = (feedback.correct_matches as Record<string, string> | undefined) ?? {};
    body = <ul>{Object.entries(matches).map(([left, right]) => <li key={left}>{left} → {right}</li>)}</ul>;
  } else {
    body = <p>{result.explanation}</p>;
  }
  return (
    <section className="answer-key" data-testid="answer-key" aria-label="Answer key">
      <h3 className="small">Answer key</h3>
      {body}
    </section>
  );
}

/** What the server answers when a numeric card's typed answer is checked (POST /flashcards/<id>/check/). */
export interface CardCheck {
  result: "correct" | "wrong"; correct: boolean; expected: number; unit: string; given_in_unit: number;
  explanation: string; suggested_rating: number;
}

/** The front of a numeric question's card: type the number (with a unit), checked as practice checks it. */
export function NumericAnswer({ cardId, unit, onChecked }: { cardId: number; unit?: string; onChecked: (answer: string, check: CardCheck) => void }) {
  const [answer, setAnswer] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      const check = await api<CardCheck>(`/flashcards/${cardId}/check/`, { method: "POST", body: { answer } });
      setError("");
      (document.activeElement as HTMLElement | null)?.blur();  // the rating keys 1–4 work at once
      onChecked(answer, check);
    } catch (e) {
      setError(e instanceof ApiError ? (e.fieldMessage("answer") ?? e.message) : String(e));
    } finally { setBusy(false); }
  };
  return (
    <form className="numeric-answer" onSubmit={(e) => void submit(e)} data-testid="numeric-answer">
      <label htmlFor={`numeric-answer-${cardId}`}>Your answer{unit ? ` (e.g. in ${unit})` : ""}</label>
      <input id={`numeric-answer-${cardId}`} value={answer} maxLength={100} autoComplete="off" inputMode="text"
        placeholder={unit ? `e.g. 12 ${unit}` : "a number"} onChange={(e) => setAnswer(e.target.value)} />
      <button type="submit" disabled={busy || !answer.trim()}>Check <kbd>Enter</kbd></button>
      {error && <p className="field-error" role="alert">{error}</p>}
    </form>
  );
}

/** The back: how the typed answer was graded, and the rating it suggests (named as the screen's buttons name it). */
export function CheckVerdict({ answer, check, suggested }: { answer: string; check: CardCheck; suggested: string }) {
  const given = `${Number(check.given_in_unit.toPrecision(4))} ${check.unit}`.trim();
  return (
    <p className={`check-verdict ${check.result}`} data-testid="check-verdict" role="status">
      <strong>{check.correct ? "✓ Correct" : "✗ Not within the tolerance"}</strong>: you answered “{answer}” ({given}).{" "}
      {check.explanation} Suggested rating: {suggested}.
    </p>
  );
}

/** A numeric card's typed answer and how it was graded. */
export interface CheckedAnswer { answer: string; check: CardCheck }

/** What a card made from a question adds to its front, in review and in cram alike: what the question offers and,
 * for a numeric question not yet revealed, the box to type the number in (checking it reveals the card). */
export function QuestionFront({ cardId, state, revealed, onChecked }: {
  cardId: number; state: QuestionCardState; revealed: boolean; onChecked: (checked: CheckedAnswer) => void;
}) {
  const { question } = state;
  if (state.loading) return <p className="muted" data-testid="question-loading">Loading the question…</p>;
  if (!question) return null;
  return (
    <>
      <QuestionChoices question={question} />
      {question.kind === "numeric" && !revealed && (
        <NumericAnswer key={cardId} cardId={cardId} unit={question.choices.unit}
          onChecked={(answer, check) => onChecked({ answer, check })} />
      )}
    </>
  );
}

/** What it adds to its back: the verdict on a typed answer (which carries the explanation), or else the answer key.
 * ``ratingLabel`` names a suggested rating as the screen's buttons do. */
export function QuestionBack({ state, checked, ratingLabel }: {
  state: QuestionCardState; checked: CheckedAnswer | null; ratingLabel: (rating: number) => string;
}) {
  if (checked) return <CheckVerdict answer={checked.answer} check={checked.check} suggested={ratingLabel(checked.check.suggested_rating)} />;
  if (!state.question) return null;
  return <AnswerKey question={state.question} result={state.key} error={state.error} />;
}
