import { useCallback, useEffect, useRef, useState, type MouseEvent } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { api, ApiError } from "../../lib/api";
import ReadingSettingsPanel from "../../components/ReadingSettingsPanel";
import { DiagramMounts } from "../../diagrams";
import { ChapterBody, GlossaryCards } from "./GlossaryCards";
import { rememberLastChapter, useProgress } from "./progress";
import type { ChapterDetail } from "./types";

export function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element) return false;
  return element.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName);
}

export default function Reader() {
  const { slug = "" } = useParams();
  const navigate = useNavigate();
  const [chapter, setChapter] = useState<ChapterDetail | null>(null);
  const [error, setError] = useState("");
  const [saving, setSaving] = useState(false);
  const bodyRef = useRef<HTMLDivElement>(null);
  const { progress, setStatus } = useProgress();

  useEffect(() => {
    let live = true;
    setChapter(null);
    setError("");
    api<ChapterDetail>(`/chapters/${slug}/`)
      .then((data) => {
        if (!live) return;
        setChapter(data);
        rememberLastChapter(data.slug);
        document.title = `${data.title} · LLM-serving kit`;
      })
      .catch((e: ApiError) => live && setError(e.status === 404 ? "No such chapter." : e.message));
    return () => {
      live = false;
    };
  }, [slug]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (event.key === "[" && chapter?.previous) navigate(`/learn/${chapter.previous.slug}`);
      else if (event.key === "]" && chapter?.next) navigate(`/learn/${chapter.next.slug}`);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [chapter, navigate]);

  const followLink = useCallback(
    (event: MouseEvent<HTMLDivElement>) => {
      const anchor = (event.target as HTMLElement).closest("a");
      const href = anchor?.getAttribute("href");
      if (!anchor || !href || !href.startsWith("/") || href.startsWith("//")) return;
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      navigate(href);
    },
    [navigate],
  );

  if (error) return <p className="error" role="alert">{error} <Link to="/learn">Back to the curriculum</Link></p>;
  if (!chapter) return <p aria-busy="true">Loading…</p>;
  const status = progress[chapter.slug] ?? chapter.status;
  const toggle = async () => {
    setSaving(true);
    try {
      await setStatus(chapter.slug, status === "understood" ? null : "understood");
    } finally {
      setSaving(false);
    }
  };

  return (
    <article className="reader" aria-labelledby="chapter-title">
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to="/learn">Learn</Link> › <span>{chapter.part.title}</span>
      </nav>
      <header className="prose">
        <h1 id="chapter-title">{chapter.title}</h1>
        <p className="muted">
          {chapter.minutes} min · {chapter.level}
          {status && <span data-testid="chapter-status"> · {status}</span>}
        </p>
        <p className="lead">{chapter.summary}</p>
      </header>
      <ReadingSettingsPanel />
      <div className="reader-grid">
        <div className="prose">
          {chapter.prerequisites.length > 0 && (
            <p className="muted">
              Read first:{" "}
              {chapter.prerequisites.map((p, i) => (
                <span key={p.slug}>
                  {i > 0 && ", "}
                  <Link to={`/learn/${p.slug}`}>{p.title}</Link>
                </span>
              ))}
            </p>
          )}
          <section aria-labelledby="objectives-title" className="objectives">
            <h2 id="objectives-title">You will be able to</h2>
            <ul>{chapter.objectives.map((o) => <li key={o}>{o}</li>)}</ul>
          </section>
          <ChapterBody html={chapter.body_html} bodyRef={bodyRef} onClick={followLink} />
          <GlossaryCards container={bodyRef} terms={chapter.glossary_terms} />
          <DiagramMounts container={bodyRef} html={chapter.body_html} />
          <p>
            <button type="button" className="primary" onClick={toggle} disabled={saving} aria-pressed={status === "understood"}>
              {status === "understood" ? "Understood ✓ (undo)" : "Mark as understood"}
            </button>
          </p>
          <nav className="prev-next" aria-label="Chapters">
            {chapter.previous ? (
              <Link to={`/learn/${chapter.previous.slug}`} rel="prev" aria-keyshortcuts="[">
                ← {chapter.previous.title}
              </Link>
            ) : <span />}
            {chapter.next ? (
              <Link to={`/learn/${chapter.next.slug}`} rel="next" aria-keyshortcuts="]">
                {chapter.next.title} →
              </Link>
            ) : <span />}
          </nav>
          <p className="muted small">Keys: [ previous · ] next · / search</p>
        </div>
        <aside className="reader-aside" aria-label="Chapter facts">
          {chapter.key_numbers.length > 0 && (
            <section aria-labelledby="numbers-title">
              <h2 id="numbers-title">Key numbers</h2>
              <dl className="key-numbers">
                {chapter.key_numbers.map((n) => (
                  <div key={n.label}>
                    <dt>{n.label}</dt>
                    <dd>
                      <strong>{n.value}</strong> {n.unit}
                      {n.source && <div className="muted small">{n.source}</div>}
                    </dd>
                  </div>
                ))}
              </dl>
            </section>
          )}
          {chapter.simulators.length > 0 && (
            <section aria-labelledby="lab-title">
              <h2 id="lab-title">In the Lab</h2>
              <ul>{chapter.simulators.map((s) => <li key={s.name}><Link to={s.url}>{s.name}</Link></li>)}</ul>
            </section>
          )}
          {chapter.questions.length > 0 && (
            <section aria-labelledby="questions-title">
              <h2 id="questions-title">Practice</h2>
              <p>
                {chapter.questions.length} questions ·{" "}
                <Link to={`/practice?chapter=${chapter.slug}`}>practise this chapter</Link>
              </p>
            </section>
          )}
        </aside>
      </div>
    </article>
  );
}
