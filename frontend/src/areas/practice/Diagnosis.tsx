// The diagnosis game: read a symptom, name the bottleneck, see the reasoning.
import { useEffect, useState } from "react";
import { Link } from "react-router-dom";
import { api, type Page } from "../../lib/api";
import type { ChapterRef } from "./api";

interface Scenario { slug: string; symptom: string; details: string; chapters: ChapterRef[]; choices: { value: string; label: string }[] }
interface Verdict { correct: boolean; answer: string; answer_label: string; reasoning_html: string }

const COLOURS: Record<string, string> = {
  compute: "var(--c-compute)", memory: "var(--c-memory)", communication: "var(--c-communication)",
  scheduling: "var(--c-decode)", workload: "var(--c-tokens)",
};

export default function Diagnosis() {
  const [scenarios, setScenarios] = useState<Scenario[] | null>(null);
  const [index, setIndex] = useState(0);
  const [picked, setPicked] = useState("");
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [tally, setTally] = useState({ right: 0, played: 0 });

  useEffect(() => {
    api<Page<Scenario>>("/diagnosis/?page_size=200").then((data) => setScenarios(data.results)).catch(() => setScenarios([]));
  }, []);

  async function choose(value: string) {
    if (!scenarios || verdict) return;
    setPicked(value);
    const result = await api<Verdict>(`/diagnosis/${scenarios[index].slug}/check/`, { method: "POST", body: { answer: value } });
    setVerdict(result);
    setTally((current) => ({ right: current.right + (result.correct ? 1 : 0), played: current.played + 1 }));
  }

  if (scenarios === null) return <p>Loading…</p>;
  if (!scenarios.length) return <section><h1>Diagnosis game</h1><p>No scenarios yet.</p></section>;
  const scenario = scenarios[index];
  return (
    <section className="diagnosis" data-testid="diagnosis">
      <h1>Diagnosis game</h1>
      <p className="muted">Is it compute-, memory-, communication-, scheduling- or workload-bound? {tally.right}/{tally.played} right so far · scenario {index + 1} of {scenarios.length}</p>
      <blockquote className="symptom"><strong>{scenario.symptom}</strong>{scenario.details && <p>{scenario.details}</p>}</blockquote>
      <div className="diagnosis-choices" role="group" aria-label="The bottleneck">
        {scenario.choices.map((choice) => (
          <button
            key={choice.value}
            type="button"
            disabled={verdict !== null}
            aria-pressed={picked === choice.value}
            style={{ borderLeft: `6px solid ${COLOURS[choice.value] ?? "var(--border)"}` }}
            onClick={() => choose(choice.value)}
          >
            {choice.label}
          </button>
        ))}
      </div>
      <div className="legend" aria-hidden="true">
        {scenario.choices.map((choice) => <span key={choice.value}><span className="swatch" style={{ background: COLOURS[choice.value] }} />{choice.label}</span>)}
      </div>
      {verdict && (
        <section className={`result result-${verdict.correct ? "ok" : "wrong"}`} aria-live="polite" data-testid="diagnosis-result">
          <h3>{verdict.correct ? "Right" : `Not quite: it is ${verdict.answer_label.toLowerCase()}`}</h3>
          <div className="prose" dangerouslySetInnerHTML={{ __html: verdict.reasoning_html }} />
          {scenario.chapters.length > 0 && (
            <p>Read: {scenario.chapters.map((chapter, i) => <span key={chapter.slug}>{i > 0 && ", "}<Link to={chapter.url}>{chapter.title}</Link></span>)}</p>
          )}
          {index + 1 < scenarios.length ? (
            <button type="button" className="primary" onClick={() => { setIndex(index + 1); setVerdict(null); setPicked(""); }}>Next scenario</button>
          ) : (
            <p><strong>Done: {tally.right} of {tally.played} right.</strong></p>
          )}
        </section>
      )}
    </section>
  );
}
