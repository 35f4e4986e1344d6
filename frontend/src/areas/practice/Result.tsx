import { useEffect } from "react";
import { percent, type CheckResult } from "./api";

export function verdict(result: CheckResult): string {
  if (result.correct === null) return "Model answer";
  if (result.correct) return "Correct";
  return (result.score ?? 0) > 0 ? "Partly correct" : "Not quite";
}

export function ratingLabel(value: string): string {
  return RATINGS.find((rating) => rating.value === value)?.label ?? value;
}

/** A graded (or revealed) answer. A self-rated answer is shown as the learner's own rating, not as a verdict; a late
 * interview answer says it was late and scores less. */
export default function Result({ result, selfRating, late }: { result: CheckResult; selfRating?: string; late?: boolean }) {
  const tone = selfRating ? "open" : result.correct ? "ok" : (result.score ?? 0) > 0 ? "partial" : "wrong";
  const heading = selfRating ? `You rated: ${ratingLabel(selfRating)}` : verdict(result) + (late && result.correct ? ", but late" : "");
  const scoreText = selfRating ? `counts ${percent(result.score)}` : `score ${percent(result.score)}`;
  return (
    <section className={`result result-${result.correct === null ? "open" : tone}${late ? " result-late" : ""}`} aria-live="polite" data-testid="result">
      <h3>{heading}{result.score !== null && <span className="muted"> · {scoreText}{late ? " (late: half marks)" : ""}</span>}</h3>
      {selfRating && <p className="muted small">A self-rating: nobody graded this answer. Compare your draft with the model answer below.</p>}
      {result.explanation && <p className="explanation">{result.explanation}</p>}
      {selfRating && <h4>Model answer</h4>}
      {/* answer_html is sanitized on the server. */}
      <div className="prose model-answer" dangerouslySetInnerHTML={{ __html: result.answer_html }} />
    </section>
  );
}

export const RATINGS = [
  { value: "again", label: "Again", key: "1" },
  { value: "hard", label: "Hard", key: "2" },
  { value: "good", label: "Good", key: "3" },
  { value: "easy", label: "Easy", key: "4" },
];

/** Self-rating for open questions; keys 1-4 work while it is shown. */
export function SelfRating({ onRate, disabled }: { onRate: (rating: string) => void; disabled?: boolean }) {
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      if (disabled || (target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
      const rating = RATINGS.find((item) => item.key === event.key);
      if (rating) {
        event.preventDefault();
        onRate(rating.value);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onRate, disabled]);
  return (
    <div className="self-rating" role="group" aria-label="How well did you know it?">
      <span className="muted">How well did you know it?</span>
      {RATINGS.map((rating) => (
        <button key={rating.value} type="button" disabled={disabled} onClick={() => onRate(rating.value)}>
          <kbd>{rating.key}</kbd> {rating.label}
        </button>
      ))}
    </div>
  );
}
