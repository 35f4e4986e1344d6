import { useEffect, useMemo, useState } from "react";
import { Link, Route, Routes, useParams } from "react-router-dom";
import { api, ApiError, type Page } from "../../lib/api";
import "../learn/learn.css";

interface TermSummary {
  slug: string;
  term: string;
  aliases: string[];
  definition: string;
}

interface TermDetail extends TermSummary {
  explanation_html: string;
  related: { slug: string; term: string; definition: string }[];
  chapters: { slug: string; title: string }[];
  simulators: { name: string; url: string }[];
}

async function loadAll(): Promise<TermSummary[]> {
  const terms: TermSummary[] = [];
  for (let page = 1; page < 20; page++) {
    const body = await api<Page<TermSummary>>(`/glossary/?page_size=500&page=${page}`);
    terms.push(...body.results);
    if (!body.next) break;
  }
  return terms;
}

function GlossaryList() {
  const [terms, setTerms] = useState<TermSummary[] | null>(null);
  const [filter, setFilter] = useState("");
  const [error, setError] = useState("");
  useEffect(() => {
    loadAll().then(setTerms).catch((e: Error) => setError(e.message));
  }, []);
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    if (!terms || !needle) return terms ?? [];
    return terms.filter((t) => [t.term, ...t.aliases].some((name) => name.toLowerCase().includes(needle)));
  }, [terms, filter]);

  if (error) return <p className="error" role="alert">{error}</p>;
  return (
    <section aria-labelledby="glossary-title">
      <h1 id="glossary-title">Glossary</h1>
      <label className="field">
        <span>Filter terms</span>
        <input
          className="glossary-filter"
          type="search"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder="e.g. KV cache, TTFT"
          aria-controls="term-list"
        />
      </label>
      {!terms ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <p className="muted" aria-live="polite">{shown.length} of {terms.length} terms</p>
          <ul className="term-list" id="term-list">
            {shown.map((t) => (
              <li key={t.slug}>
                <Link to={`/glossary/${t.slug}`}><strong>{t.term}</strong></Link>
                {t.aliases.length > 0 && <span className="muted"> ({t.aliases.join(", ")})</span>}
                <div>{t.definition}</div>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function TermPage() {
  const { slug = "" } = useParams();
  const [term, setTerm] = useState<TermDetail | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    setTerm(null);
    setError("");
    api<TermDetail>(`/glossary/${slug}/`)
      .then(setTerm)
      .catch((e: ApiError) => setError(e.status === 404 ? "No such term." : e.message));
  }, [slug]);
  if (error) return <p className="error" role="alert">{error} <Link to="/glossary">All terms</Link></p>;
  if (!term) return <p aria-busy="true">Loading…</p>;
  return (
    <article className="prose" aria-labelledby="term-title">
      <p className="breadcrumbs"><Link to="/glossary">Glossary</Link></p>
      <h1 id="term-title">{term.term}</h1>
      {term.aliases.length > 0 && <p className="muted">Also: {term.aliases.join(", ")}</p>}
      <p className="lead"><strong>{term.definition}</strong></p>
      <div dangerouslySetInnerHTML={{ __html: term.explanation_html }} />
      {term.chapters.length > 0 && (
        <section aria-labelledby="term-chapters">
          <h2 id="term-chapters">In the chapters</h2>
          <ul>{term.chapters.map((c) => <li key={c.slug}><Link to={`/learn/${c.slug}`}>{c.title}</Link></li>)}</ul>
        </section>
      )}
      {term.related.length > 0 && (
        <section aria-labelledby="term-related">
          <h2 id="term-related">Related terms</h2>
          <ul>
            {term.related.map((r) => (
              <li key={r.slug}><Link to={`/glossary/${r.slug}`}>{r.term}</Link> — {r.definition}</li>
            ))}
          </ul>
        </section>
      )}
      {term.simulators.length > 0 && (
        <section aria-labelledby="term-lab">
          <h2 id="term-lab">In the Lab</h2>
          <ul>{term.simulators.map((s) => <li key={s.name}><Link to={s.url}>{s.name}</Link></li>)}</ul>
        </section>
      )}
    </article>
  );
}

export default function GlossaryArea() {
  return (
    <Routes>
      <Route index element={<GlossaryList />} />
      <Route path=":slug" element={<TermPage />} />
    </Routes>
  );
}
