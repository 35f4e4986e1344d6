import { useCallback, useEffect, useState } from "react";
import type { components } from "../../generated/api";
import { api, ApiError } from "../../lib/api";
import { FLAGS } from "./flags";

interface Row {
  card_id: number; source_type: string; front: string; back: string; state: number; state_name: string; due: string;
  last_review: string | null; reps: number; lapses: number; stability: number | null; difficulty: number | null;
  suspended: boolean; leech: boolean; retired: boolean; buried: boolean; flag: number; own: boolean; anki_deck: string;
}
interface Page { count: number; page: number; page_size: number; results: Row[] }
interface HistoryEntry {
  review_id: string; reviewed_at: string; rating: number; duration_ms: number | null; state_before: number; state_after: number;
  stability: number | null; difficulty: number | null; due: string | null; retrievability_before: number | null;
}
interface Detail extends Row {
  front_html: string; back_html: string; decks: { slug: string; title: string }[]; note: string;
  links: { kind: string; title: string; path: string }[]; history: HistoryEntry[];
}

const PAGE_SIZE = 50;
const RATING_NAMES = ["", "Again", "Hard", "Good", "Easy"];
const EMPTY = { q: "", deck: "", tag: "", anki_deck: "", state: "", suspended: "", flag: "", due_before: "", due_after: "", lapses_min: "", difficulty_min: "", difficulty_max: "", sort: "due" };
type Filters = typeof EMPTY;
type AnkiDeck = components["schemas"]["AnkiDeck"];

/** An Anki deck as its tree shows it: its last level, indented by depth (the option's value is the full name). */
function ankiDeckLabel(deck: AnkiDeck): string {
  const levels = deck.name.split("::");
  return `${"\u00a0\u00a0".repeat(levels.length - 1)}${levels[levels.length - 1]} (${deck.cards})`;
}

function MemoryChart({ history }: { history: HistoryEntry[] }) {
  const points = history.filter((h) => h.stability !== null);
  if (points.length < 1) return <p className="muted">No FSRS memory yet (never reviewed).</p>;
  const w = 320, h = 90, max = Math.max(...points.map((p) => p.stability as number), 1);
  const x = (i: number) => (points.length === 1 ? w / 2 : 10 + (i * (w - 20)) / (points.length - 1));
  const y = (v: number) => h - 10 - ((h - 20) * v) / max;
  return (
    <svg width={w} height={h} role="img" aria-label="Stability after each review" data-testid="memory-chart">
      <polyline fill="none" stroke="currentColor" strokeWidth="2" points={points.map((p, i) => `${x(i)},${y(p.stability as number)}`).join(" ")} />
      {points.map((p, i) => <circle key={p.review_id} cx={x(i)} cy={y(p.stability as number)} r="3" />)}
    </svg>
  );
}

function CardDetailPanel({ cardId, onClose }: { cardId: number; onClose: () => void }) {
  const [detail, setDetail] = useState<Detail | null>(null);
  useEffect(() => { void api<Detail>(`/flashcards/${cardId}/`).then(setDetail); }, [cardId]);
  if (!detail) return <aside className="card-detail">Loading…</aside>;
  return (
    <aside className="card-detail" data-testid="card-detail" aria-label="Card details">
      <button type="button" onClick={onClose} aria-label="Close details">×</button>
      <div dangerouslySetInnerHTML={{ __html: detail.front_html }} />
      <p className="muted">{detail.state_name} · {detail.reps} reviews · {detail.lapses} lapses · decks: {detail.decks.map((d) => d.title).join(", ")}
        {detail.flag > 0 && ` · ${FLAGS[detail.flag]} flag`}</p>
      {detail.anki_deck && <p className="anki-deck" data-testid="detail-anki-deck">Anki deck: {detail.anki_deck}</p>}
      {detail.note && <p className="card-note" data-testid="detail-note"><strong>Your note:</strong> {detail.note}</p>}
      <p>{detail.links.map((link) => <a key={link.path} href={link.path}>{link.kind === "chapter" ? `Chapter: ${link.title}` : `Open ${link.title.toLowerCase()}`} </a>)}</p>
      <h4>Memory over time (stability, days)</h4>
      <MemoryChart history={detail.history} />
      <table data-testid="review-history">
        <thead><tr><th>When</th><th>Rating</th><th>Recall then</th><th>Stability</th><th>Difficulty</th><th>Time</th></tr></thead>
        <tbody>
          {detail.history.map((h) => (
            <tr key={h.review_id}>
              <td>{new Date(h.reviewed_at).toLocaleString()}</td><td>{RATING_NAMES[h.rating]}</td>
              <td>{h.retrievability_before === null ? "—" : `${Math.round(h.retrievability_before * 100)}%`}</td>
              <td>{h.stability?.toFixed(1) ?? "—"}</td><td>{h.difficulty?.toFixed(2) ?? "—"}</td>
              <td>{h.duration_ms === null ? "—" : `${Math.round(h.duration_ms / 1000)} s`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </aside>
  );
}

export default function Browse() {
  const [form, setForm] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page | null>(null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState("");
  const [rescheduleTo, setRescheduleTo] = useState("");
  const [open, setOpen] = useState<number | null>(null);
  const [ankiDecks, setAnkiDecks] = useState<AnkiDeck[]>([]);
  useEffect(() => { void api<AnkiDeck[]>("/flashcards/anki-decks/").then(setAnkiDecks); }, []);

  const load = useCallback(async () => {
    const query = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
    for (const [key, value] of Object.entries(applied)) if (value !== "") query.set(key, value);
    try { setData(await api<Page>(`/flashcards/cards/?${query}`)); setError(null); }
    catch (e) { if (e instanceof ApiError) setError(e); else throw e; }
  }, [applied, page]);
  useEffect(() => { void load(); }, [load]);

  const set = (patch: Partial<Filters>) => setForm({ ...form, ...patch });
  const search = (event: React.FormEvent) => { event.preventDefault(); setPage(1); setSelected(new Set()); setApplied(form); };
  const toggle = (id: number) => setSelected((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });
  const pageIds = data?.results.map((r) => r.card_id) ?? [];
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const bulk = async (action: string) => {
    try {
      const body: Record<string, unknown> = { card_ids: [...selected], action };
      if (action === "reschedule") body.due = rescheduleTo;
      const result = await api<{ updated: number; skipped: number }>("/flashcards/cards/bulk/", { method: "POST", body });
      setMessage(`${action}: ${result.updated} card${result.updated === 1 ? "" : "s"}${result.skipped ? `, ${result.skipped} skipped` : ""}.`);
      setError(null);
      await load();
    } catch (e) { if (e instanceof ApiError) setError(e); }
  };
  const input = (name: keyof Filters, label: string, type = "text", extra: Record<string, string> = {}) => (
    <label className="browse-field">{label}
      <input name={name} type={type} value={form[name]} onChange={(e) => set({ [name]: e.target.value } as Partial<Filters>)} {...extra} />
      {error?.fieldMessage(name) && <span className="field-error" role="alert">{error.fieldMessage(name)}</span>}
    </label>
  );
  const pages = data ? Math.max(1, Math.ceil(data.count / PAGE_SIZE)) : 1;
  return (
    <section className="browse">
      <h2>Browse cards</h2>
      <form onSubmit={search} className="browse-filters" role="search">
        {input("q", "Text")}
        {input("deck", "Deck (slug)")}
        {input("tag", "Topic")}
        {ankiDecks.length > 0 && (
          <label className="browse-field">Anki deck
            <select name="anki_deck" value={form.anki_deck} onChange={(e) => set({ anki_deck: e.target.value })}>
              <option value="">any</option>
              {ankiDecks.map((deck) => <option key={deck.name} value={deck.name} title={deck.name}>{ankiDeckLabel(deck)}</option>)}
            </select>
            {error?.fieldMessage("anki_deck") && <span className="field-error" role="alert">{error.fieldMessage("anki_deck")}</span>}
          </label>
        )}
        <label className="browse-field">State
          <select name="state" value={form.state} onChange={(e) => set({ state: e.target.value })}>
            <option value="">any</option><option value="0">new</option><option value="1">learning</option>
            <option value="2">review</option><option value="3">relearning</option>
          </select>
        </label>
        <label className="browse-field">Suspended
          <select name="suspended" value={form.suspended} onChange={(e) => set({ suspended: e.target.value })}>
            <option value="">any</option><option value="true">yes</option><option value="false">no</option>
          </select>
        </label>
        <label className="browse-field">Flag
          <select name="flag" value={form.flag} onChange={(e) => set({ flag: e.target.value })}>
            <option value="">any</option>
            {FLAGS.map((name, value) => <option key={name} value={value}>{name}</option>)}
          </select>
        </label>
        {input("due_after", "Due after", "date")}
        {input("due_before", "Due before", "date")}
        {input("lapses_min", "Lapses ≥", "number", { min: "0" })}
        {input("difficulty_min", "Difficulty from", "number", { step: "0.1" })}
        {input("difficulty_max", "Difficulty to", "number", { step: "0.1" })}
        <label className="browse-field">Sort
          <select name="sort" value={form.sort} onChange={(e) => set({ sort: e.target.value })}>
            {["due", "-due", "added", "-added", "-lapses", "-difficulty", "difficulty", "-stability", "stability", "-reps", "last_review", "card"].map((key) => (
              <option key={key} value={key}>{key.startsWith("-") ? `${key.slice(1)} ↓` : `${key} ↑`}</option>))}
          </select>
        </label>
        <button type="submit" className="primary">Search</button>
      </form>
      {error && !Object.keys(error.body.fields ?? {}).some((f) => f in EMPTY) && <p role="alert" className="error">{error.message}</p>}
      {message && <p role="status">{message}</p>}
      <div className="bulk-bar" aria-label="Bulk actions">
        <span data-testid="selected-count">{selected.size} selected</span>
        {["suspend", "unsuspend", "bury", "unbury", "reset"].map((action) => (
          <button key={action} type="button" disabled={!selected.size} onClick={() => void bulk(action)}>{action[0].toUpperCase() + action.slice(1)}</button>
        ))}
        <label>Reschedule to <input type="date" name="reschedule" value={rescheduleTo} onChange={(e) => setRescheduleTo(e.target.value)} /></label>
        <button type="button" disabled={!selected.size || !rescheduleTo} onClick={() => void bulk("reschedule")}>Reschedule</button>
      </div>
      {data && (
        <>
          <p className="muted" data-testid="browse-count">{data.count} card{data.count === 1 ? "" : "s"} · page {data.page} of {pages}</p>
          <div className="table-scroll">
            <table data-testid="browse-table">
              <thead><tr>
                <th><input type="checkbox" aria-label="Select all on this page" checked={allOnPage}
                  onChange={() => setSelected((s) => { const n = new Set(s); pageIds.forEach((id) => (allOnPage ? n.delete(id) : n.add(id))); return n; })} /></th>
                <th>Front</th><th>State</th><th>Due</th><th>Lapses</th><th>Difficulty</th><th />
              </tr></thead>
              <tbody>
                {data.results.map((row) => (
                  <tr key={row.card_id} data-testid={`browse-row-${row.card_id}`} className={row.suspended ? "muted" : ""}>
                    <td><input type="checkbox" aria-label={`Select card ${row.card_id}`} checked={selected.has(row.card_id)} onChange={() => toggle(row.card_id)} /></td>
                    <td className="browse-front">{row.flag > 0 && <span className={`badge flag-badge flag-${row.flag}`}>{FLAGS[row.flag]}</span>}{row.own && <span className="flag-badge">yours</span>} {row.front}
                      {row.anki_deck && <span className="anki-deck" data-testid="row-anki-deck" title="Anki deck">{row.anki_deck}</span>}</td>
                    <td>{row.state_name}{row.suspended ? " · suspended" : ""}{row.buried ? " · buried" : ""}</td>
                    <td>{new Date(row.due).toLocaleDateString()}</td><td>{row.lapses}</td>
                    <td>{row.difficulty?.toFixed(1) ?? "—"}</td>
                    <td><button type="button" onClick={() => setOpen(row.card_id)} aria-label={`Details of card ${row.card_id}`}>Details</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>{" "}
            <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
          </p>
        </>
      )}
      {open !== null && <CardDetailPanel cardId={open} onClose={() => setOpen(null)} />}
    </section>
  );
}
