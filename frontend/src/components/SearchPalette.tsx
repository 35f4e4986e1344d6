// The search palette: `/` or Ctrl-K anywhere (except while typing), arrows + Enter to open, Esc to close.
import { useEffect, useId, useRef, useState } from "react";
import { useNavigate } from "react-router-dom";
import { api } from "../lib/api";
import "../areas/learn/learn.css";

interface Result {
  kind: "chapter" | "term" | "question";
  slug: string | null;
  id: number | null;
  title: string;
  url: string;
  snippet: string; // escaped by the server; only <mark> is markup
}

interface SearchBody {
  query: string;
  corrected: string | null;
  results: Result[];
}

function typing(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  return Boolean(element && (element.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName)));
}

export default function SearchPalette() {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [body, setBody] = useState<SearchBody | null>(null);
  const [active, setActive] = useState(0);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const opener = useRef<Element | null>(null);
  const navigate = useNavigate();
  const listId = useId();

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const ctrlK = (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k";
      if (ctrlK || (event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !typing(event.target))) {
        event.preventDefault();
        opener.current = document.activeElement;
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  useEffect(() => {
    const q = query.trim();
    if (!open || !q) {
      setBody(null);
      return;
    }
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      setBusy(true);
      api<SearchBody>(`/search/?q=${encodeURIComponent(q.slice(0, 200))}&limit=12`, { signal: controller.signal })
        .then((data) => {
          setBody(data);
          setActive(0);
        })
        .catch(() => undefined)
        .finally(() => setBusy(false));
    }, 150);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [query, open]);

  const close = () => {
    setOpen(false);
    setQuery("");
    setBody(null);
    (opener.current as HTMLElement | null)?.focus?.();
  };
  const go = (result: Result | undefined) => {
    if (!result) return;
    close();
    navigate(result.url);
  };
  const results = body?.results ?? [];

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((i) => Math.min(i + 1, results.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((i) => Math.max(i - 1, 0));
    } else if (event.key === "Enter") {
      event.preventDefault();
      go(results[active]);
    }
  };

  return (
    <>
      <button type="button" className="search-trigger" onClick={() => setOpen(true)} aria-keyshortcuts="/ Control+K">
        Search <kbd>/</kbd>
      </button>
      {open && (
        <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
          <div className="palette" role="dialog" aria-modal="true" aria-label="Search">
            <input
              ref={input}
              type="text"
              role="combobox"
              aria-label="Search chapters, terms and questions"
              aria-expanded={results.length > 0}
              aria-controls={listId}
              aria-activedescendant={results.length ? `${listId}-${active}` : undefined}
              aria-autocomplete="list"
              placeholder="Search chapters, glossary, questions…"
              value={query}
              maxLength={200}
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={onKeyDown}
            />
            {body?.corrected && <p className="muted small" style={{ margin: "0.4rem 1rem" }}>Showing results for “{body.corrected}”</p>}
            <ul id={listId} role="listbox" aria-label="Results" aria-busy={busy}>
              {results.map((result, index) => (
                <li
                  key={`${result.kind}-${result.slug ?? result.id}`}
                  id={`${listId}-${index}`}
                  role="option"
                  aria-selected={index === active}
                  onMouseEnter={() => setActive(index)}
                  onClick={() => go(result)}
                >
                  <span className="kind">{result.kind}</span>
                  <strong>{result.title}</strong>
                  <div className="snippet" dangerouslySetInnerHTML={{ __html: result.snippet }} />
                </li>
              ))}
              {query.trim() && body && results.length === 0 && <li role="option" aria-disabled="true" aria-selected={false}>No results</li>}
            </ul>
          </div>
        </div>
      )}
    </>
  );
}
