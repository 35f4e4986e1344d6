import { useEffect, useState } from "react";
import { Link } from "react-router-dom";
import { api, type Page } from "../../lib/api";
import { useProgress } from "./progress";
import type { ChapterSummary, PartSummary } from "./types";

export function ProgressBar({ done, total, label }: { done: number; total: number; label: string }) {
  const percent = total ? Math.round((100 * done) / total) : 0;
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
      <span style={{ width: `${percent}%`, background: "var(--ok)" }} />
    </div>
  );
}

export default function Curriculum() {
  const [parts, setParts] = useState<PartSummary[] | null>(null);
  const [chapters, setChapters] = useState<ChapterSummary[]>([]);
  const [error, setError] = useState("");
  const { progress } = useProgress();

  useEffect(() => {
    Promise.all([api<PartSummary[]>("/parts/"), api<Page<ChapterSummary>>("/chapters/?page_size=500")])
      .then(([partList, chapterPage]) => {
        setParts(partList);
        setChapters(chapterPage.results);
      })
      .catch((e: Error) => setError(e.message));
  }, []);

  if (error) return <p className="error" role="alert">Could not load the curriculum: {error}</p>;
  if (!parts) return <p aria-busy="true">Loading…</p>;
  const total = chapters.length;
  const understood = chapters.filter((c) => progress[c.slug] === "understood").length;
  return (
    <section aria-labelledby="curriculum-title">
      <h1 id="curriculum-title">Learn</h1>
      <p>
        {understood} of {total} chapters understood. <Link to="/learn/map">Open the concept map</Link>
      </p>
      <ProgressBar done={understood} total={total} label="Whole curriculum" />
      {parts.map((part) => {
        const inPart = chapters.filter((c) => c.part === part.slug);
        const done = inPart.filter((c) => progress[c.slug] === "understood").length;
        return (
          <section key={part.slug} className="part" aria-labelledby={`part-${part.slug}`} data-testid={`part-${part.slug}`}>
            <h2 id={`part-${part.slug}`}>
              {part.order}. {part.title}
            </h2>
            {part.summary && <p className="muted">{part.summary}</p>}
            <p className="part-count" data-testid={`part-progress-${part.slug}`}>
              {done} / {inPart.length} understood
            </p>
            <ProgressBar done={done} total={inPart.length} label={`Progress in ${part.title}`} />
            <ol className="chapter-list">
              {inPart.map((chapter) => (
                <li key={chapter.slug} className={`status-${progress[chapter.slug] ?? "none"}`}>
                  <Link to={`/learn/${chapter.slug}`}>{chapter.title}</Link>{" "}
                  <span className="muted">
                    {chapter.minutes} min · {chapter.level}
                    {progress[chapter.slug] ? ` · ${progress[chapter.slug]}` : ""}
                  </span>
                </li>
              ))}
            </ol>
          </section>
        );
      })}
    </section>
  );
}
