// One question's answer input, by kind. Calls onSubmit with the answer in the API's shape.
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link } from "react-router-dom";
import type { Answer, Question } from "./api";
import { BinSorter, SortableList } from "./dnd";

const DIMENSIONS: string[][] = [
  ["B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "bit", "Gbit"],
  ["ns", "us", "ms", "s", "min", "h"],
  ["FLOP", "GFLOP", "TFLOP", "PFLOP"],
  ["FLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"],
  ["B/s", "KB/s", "MB/s", "GB/s", "TB/s", "GiB/s", "Gbit/s"],
];

export function unitsLike(unit: string): string[] {
  return DIMENSIONS.find((group) => group.includes(unit)) ?? [unit];
}

export function Prompt({ question }: { question: Question }) {
  // prompt_html is sanitized on the server (Markdown rendered through an allow-list).
  return <div className="prose question-prompt" dangerouslySetInnerHTML={{ __html: question.prompt_html }} />;
}

/** Where the question comes from: the chapters to (re-)read. */
export function QuestionChapters({ question }: { question: Question }) {
  if (question.chapters.length === 0) return null;
  return (
    <p className="muted small question-chapters" data-testid="question-chapters">
      From {question.chapters.length === 1 ? "the chapter" : "the chapters"}{" "}
      {question.chapters.map((chapter, index) => (
        <span key={chapter.slug}>{index > 0 && ", "}<Link to={chapter.url}>{chapter.title}</Link></span>
      ))}
    </p>
  );
}

/** The number typed, with a unit typed after it (“4 GB”, “1,024 tokens”) when there is one. `problem` says, in
 * words, why it cannot be sent yet (never a button that just stays disabled). */
export function readNumber(text: string, units: string[]): { value: number; unit: string | null; problem: string } {
  const match = /^\s*([-+]?[\d.,_ ]*\d(?:[eE][-+]?\d+)?)\s*([^\d\s].*?)?\s*$/.exec(text);
  if (!match) return { value: NaN, unit: null, problem: "Type a number, for example 16 or 16 GiB." };
  const value = Number(match[1].replace(/[,_ ]/g, ""));
  if (Number.isNaN(value)) return { value, unit: null, problem: `“${match[1].trim()}” is not a number.` };
  const written = match[2];
  if (!written) return { value, unit: null, problem: "" };
  const unit = units.find((name) => name === written) ?? units.find((name) => name.toLowerCase() === written.toLowerCase());
  if (unit === undefined) {
    return { value, unit: null, problem: `“${written}” is not a unit for this answer; use ${units.filter(Boolean).join(", ")}.` };
  }
  return { value, unit, problem: "" };
}

export default function QuestionInput({ question, disabled, onSubmit, error }: {
  question: Question;
  disabled?: boolean;
  onSubmit: (answer: Answer) => void;
  error?: string;
}) {
  const { kind, choices } = question;
  const [selected, setSelected] = useState<number[]>([]);
  const [value, setValue] = useState("");
  const [unit, setUnit] = useState(choices.unit ?? "");
  const [order, setOrder] = useState<string[]>(choices.items ?? []);
  const [rights, setRights] = useState<string[]>(choices.right ?? []);
  const [placement, setPlacement] = useState<Record<string, string>>({});

  useEffect(() => {
    setSelected([]); setValue(""); setUnit(choices.unit ?? ""); setOrder(choices.items ?? []);
    setRights(choices.right ?? []); setPlacement({});
  }, [question.id]); // eslint-disable-line react-hooks/exhaustive-deps

  const units = useMemo(() => unitsLike(choices.unit ?? ""), [choices.unit]);
  const typed = kind === "numeric" ? readNumber(value, units) : null;

  function answer(): Answer {
    switch (kind) {
      case "single_choice":
      case "multiple_choice":
        return { selected };
      case "numeric":
        return { value: typed?.value ?? NaN, unit: typed?.unit ?? unit };
      case "ordering":
        return { order };
      case "categorize":
        return { placement };
      case "matching":
        return { matches: Object.fromEntries((choices.left ?? []).map((left, index) => [left, rights[index]])) };
      default:
        return {};
    }
  }

  const ready =
    kind === "numeric" ? typed !== null && typed.problem === ""
    : kind === "single_choice" || kind === "multiple_choice" ? selected.length > 0
    : kind === "categorize" ? Object.keys(placement).length === (choices.items ?? []).length
    : true;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (ready && !disabled) onSubmit(answer());
  }

  return (
    <form className="question-input" onSubmit={submit} data-kind={kind}>
      {(kind === "single_choice" || kind === "multiple_choice") && (
        <fieldset className="choices">
          <legend>{kind === "single_choice" ? "Choose one" : "Choose all that apply"}</legend>
          {(choices.options ?? []).map((text, index) => (
            <label key={text} className="choice">
              <input
                type={kind === "single_choice" ? "radio" : "checkbox"}
                name={`q-${question.id}`}
                checked={selected.includes(index)}
                disabled={disabled}
                onChange={(event) => {
                  if (kind === "single_choice") setSelected([index]);
                  else setSelected(event.target.checked ? [...selected, index] : selected.filter((i) => i !== index));
                }}
              />{" "}
              {text}
            </label>
          ))}
        </fieldset>
      )}
      {kind === "numeric" && (
        <div className="numeric-input">
          <label className="field">
            <span>Your answer</span>
            <input inputMode="decimal" value={value} disabled={disabled} onChange={(event) => setValue(event.target.value)} aria-describedby="numeric-help" />
          </label>
          <label className="field">
            <span>Unit</span>
            <select value={unit} disabled={disabled} onChange={(event) => setUnit(event.target.value)}>
              {units.map((name) => <option key={name} value={name}>{name || "(no unit)"}</option>)}
            </select>
          </label>
          <p id="numeric-help" className="muted">Any unit of the same kind is converted (GiB, GB or bytes; ms or s); a
            unit typed after the number (“4 GB”) counts as chosen.</p>
          {value.trim() !== "" && typed?.problem && <p className="error" role="alert" data-testid="numeric-problem">{typed.problem}</p>}
        </div>
      )}
      {kind === "ordering" && <SortableList name="ordering" items={order} onChange={setOrder} disabled={disabled} />}
      {kind === "matching" && <SortableList name="matching" items={rights} labels={choices.left} onChange={setRights} disabled={disabled} />}
      {kind === "categorize" && (
        <BinSorter items={choices.items ?? []} bins={choices.bins ?? []} placement={placement} onChange={setPlacement} disabled={disabled} />
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {kind !== "open" && (
        <button type="submit" className="primary" disabled={!ready || disabled}>Check answer</button>
      )}
    </form>
  );
}
