import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { Link, NavLink, Route, Routes, useSearchParams } from "react-router-dom";
import type { components } from "../../generated/api";
import { api, ApiError, retryWhileUnavailable } from "../../lib/api";
import { useAuth } from "../../lib/auth";
import { ForecastChart, Heatmap, RetentionChart, type DayCount, type Retention } from "./charts";
import Browse from "./Browse";
import AddCardPage, { OwnCardForm } from "./OwnCard";
import Presets, { OptimizeButton, type Preset } from "./Presets";
import { FLAGS } from "./flags";
import { QuestionBack, QuestionFront, useQuestionCard, type CheckedAnswer } from "./QuestionCard";
import "./flashcards.css";

interface SourceLink { kind: string; title: string; path: string }
interface DueCard {
  card_id: number; source_type: string; source_id: number; front: string; back: string; front_html: string; back_html: string; state: number; state_name: string;
  source_changed: boolean; leech: boolean; intervals: Record<string, number>; flag: number; note: string; links: SourceLink[]; lapses: number; own: boolean;
}
interface Today { reviews: number; again: number; daily_goal: number; timed_reviews: number; time_ms: number }
interface DueQueue {
  counts: { learning: number; review: number; new: number }; done_today: number; today: Today; next_learning_due: string | null; cards: DueCard[];
}
interface Stats {
  reviews_per_day: DayCount[]; streak: number; true_retention: Record<string, Retention>; forecast: DayCount[];
  card_counts: Record<string, number>; average_retrievability: number | null;
}
interface SrsSettings {
  desired_retention: number; new_cards_per_day: number; max_reviews_per_day: number; learning_steps: number[];
  relearning_steps: number[]; maximum_interval_days: number; day_rollover_hour: number; time_zone: string; fuzzing: boolean;
  leech_threshold: number; daily_goal: number; parameters: number[];
}

const RATINGS = [
  { value: 1, label: "Again" }, { value: 2, label: "Hard" }, { value: 3, label: "Good" }, { value: 4, label: "Easy" },
];

function ratingLabel(rating: number): string {
  return RATINGS.find((r) => r.value === rating)?.label ?? String(rating);
}

export function formatInterval(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))}m`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h`;
  const days = Math.round(seconds / 86400);
  if (days < 30) return `${days}d`;
  if (days < 365) return `${(days / 30).toFixed(1)}mo`;
  return `${(days / 365).toFixed(1)}y`;
}

function newId(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  return "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (c) =>
    (Number(c) ^ (Math.random() * 16) >> (Number(c) / 4)).toString(16));
}

interface DeckNode {
  slug: string; title: string; kind: string; total: number; in_collection: number; preset: { id: number; name: string } | null;
  counts: { learning: number; review: number; new: number }; children: DeckNode[];
}
interface DeckTree { decks: DeckNode[]; limits: { new_left: number; reviews_left: number } }

// The deck tree opens on the top-level decks (All cards and its parts, the Topics group closed); the nodes a learner
// opens are remembered in this browser. A closed part still shows its whole subtree's counts (the API's part deck
// holds every card of its chapters).
const OPEN_KEY = "flashcards.deckTree.open";
const TOPICS_GROUP = "topics";
const OPEN_BY_DEFAULT = ["all"];

function loadOpen(): Set<string> {
  try {
    const stored = JSON.parse(localStorage.getItem(OPEN_KEY) ?? "null");
    if (Array.isArray(stored)) return new Set(stored.filter((s) => typeof s === "string"));
  } catch { /* unreadable: the default */ }
  return new Set(OPEN_BY_DEFAULT);
}

interface RowActions { toggle: (slug: string) => void; add: (node: DeckNode) => void; assign: (node: DeckNode, preset: number | null) => void }

function DeckRow({ node, depth, opened, actions, presets }: {
  node: DeckNode; depth: number; opened: Set<string>; actions: RowActions; presets: Preset[];
}) {
  const { toggle, add, assign } = actions;
  const open = opened.has(node.slug);
  const due = node.counts.learning + node.counts.review + node.counts.new;
  return (
    <>
      <tr data-testid={`deck-${node.slug}`} data-depth={depth}>
        <td style={{ paddingLeft: `${0.4 + depth * 1.4}rem` }}>
          <span className="tree-name">
            {node.children.length > 0 ? (
              <button type="button" className="tree-toggle" aria-expanded={open} aria-label={`${open ? "Collapse" : "Expand"} ${node.title}`}
                onClick={() => toggle(node.slug)}><span aria-hidden="true">{open ? "▾" : "▸"}</span></button>
            ) : <span className="tree-toggle-space" />}
            <span>{node.title}</span>
          </span>
        </td>
        <td className="count-new">{node.counts.new}</td><td className="count-learning">{node.counts.learning}</td>
        <td className="count-review">{node.counts.review}</td>
        <td>{node.in_collection} / {node.total}</td>
        <td className="deck-actions">
          {node.in_collection > 0 && (
            <Link to={`/flashcards/review?deck=${encodeURIComponent(node.slug)}`} aria-label={`Study ${node.title}`}
              className={due ? "" : "muted"}>Study</Link>
          )}{" "}
          {node.in_collection > 0 && (
            <Link to={`/flashcards/cram?deck=${encodeURIComponent(node.slug)}`} aria-label={`Cram ${node.title}`}>Cram</Link>
          )}{" "}
          <button type="button" onClick={() => add(node)} disabled={node.in_collection >= node.total}
            aria-label={`Add ${node.title}`}>Add</button>
        </td>
        <td>
          {node.kind === "all" ? <span className="muted small">Default</span> : (
            <select aria-label={`Options preset for ${node.title}`} value={node.preset?.id ?? ""}
              onChange={(e) => assign(node, e.target.value ? Number(e.target.value) : null)}>
              <option value="">{node.kind === "chapter" ? "Part's or Default" : "Default"}</option>
              {presets.map((preset) => <option key={preset.id} value={preset.id}>{preset.name}</option>)}
            </select>
          )}
        </td>
      </tr>
      {open && node.children.map((child) => (
        <DeckRow key={child.slug} node={child} depth={depth + 1} opened={opened} actions={actions} presets={presets} />
      ))}
    </>
  );
}

function DeckList() {
  const [tree, setTree] = useState<DeckTree | null>(null);
  const [message, setMessage] = useState("");
  const [opened, setOpened] = useState<Set<string>>(loadOpen);
  const [presets, setPresets] = useState<Preset[]>([]);
  const load = useCallback(
    () => api<DeckTree>("/flashcards/deck-tree/").then(setTree).catch((e: Error) => setMessage(e.message)), []);
  useEffect(() => { void api<Preset[]>("/flashcards/presets/").then(setPresets); }, []);
  useEffect(() => { void load(); }, [load]);
  const toggle = useCallback((slug: string) => {
    setOpened((previous) => {
      const next = new Set(previous);
      if (next.has(slug)) next.delete(slug); else next.add(slug);
      try { localStorage.setItem(OPEN_KEY, JSON.stringify([...next])); } catch { /* private mode: not remembered */ }
      return next;
    });
  }, []);
  const add = async (deck: DeckNode) => {
    const result = await api<{ added: number }>(`/flashcards/decks/${deck.slug}/add/`, { method: "POST" });
    await load();  // the counts first, then the message: "Added" never sits next to the old counts
    setMessage(`Added ${result.added} card${result.added === 1 ? "" : "s"} from “${deck.title}”.`);
  };
  const assign = async (deck: DeckNode, preset: number | null) => {
    const result = await api<{ preset: { name: string } | null }>(`/flashcards/decks/${deck.slug}/preset/`, { method: "PUT", body: { preset } });
    await load();
    setMessage(`“${deck.title}” uses ${result.preset ? `the preset “${result.preset.name}”` : "its parent's options or the Default"}.`);
  };
  const actions: RowActions = { toggle, add: (d) => void add(d), assign: (d, p) => void assign(d, p) };
  if (!tree) return <p>{message || "Loading decks…"}</p>;
  const [everything, ...topics] = tree.decks;
  const topicsOpen = opened.has(TOPICS_GROUP);
  return (
    <section>
      <h2>Decks</h2>
      {message && <p role="status">{message}</p>}
      <div className="table-scroll">
        <table data-testid="deck-table" className="deck-tree">
          <thead><tr><th>Deck</th><th>New</th><th>Learning</th><th>Due</th><th>In collection</th><th /><th>Options</th></tr></thead>
          <tbody>
            {everything && <DeckRow node={everything} depth={0} opened={opened} actions={actions} presets={presets} />}
            {topics.length > 0 && (
              <tr data-testid="deck-group-topics">
                <th colSpan={7} className="tree-group" scope="rowgroup">
                  <button type="button" className="tree-toggle" aria-expanded={topicsOpen}
                    aria-label={`${topicsOpen ? "Collapse" : "Expand"} Topics`} onClick={() => toggle(TOPICS_GROUP)}>
                    <span aria-hidden="true">{topicsOpen ? "▾" : "▸"}</span>
                  </button>
                  Topics <span className="muted small">{topics.length} decks by question topic</span>
                </th>
              </tr>
            )}
            {topicsOpen && topics.map((node) => <DeckRow key={node.slug} node={node} depth={1} opened={opened} actions={actions} presets={presets} />)}
          </tbody>
        </table>
      </div>
      <p><Link to="/flashcards/review" className="button-link">Review all due cards</Link></p>
    </section>
  );
}

interface UndoEntry { kind: "review" | "suspend" | "bury"; cardId: number; reviewId?: string; rating?: number; durationMs?: number }

/** Space or Enter shows the answer, as in Anki; Enter on a button or link keeps doing what that control does. */
function revealKey(event: KeyboardEvent): boolean {
  return event.key === " " || (event.key === "Enter" && !["BUTTON", "A", "SUMMARY"].includes((event.target as HTMLElement).tagName));
}

function seconds(ms: number): string { return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`; }

function Review() {
  const [params] = useSearchParams();
  const deck = params.get("deck") ?? "";
  const [queue, setQueue] = useState<DueQueue | null>(null);
  const [revealed, setRevealed] = useState(false);
  const [undoStack, setUndoStack] = useState<UndoEntry[]>([]);
  const [session, setSession] = useState({ reviewed: 0, again: 0, timeMs: 0, lastMs: null as number | null });
  const [error, setError] = useState("");
  const [message, setMessage] = useState("");
  const [noteDraft, setNoteDraft] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [forecast, setForecast] = useState<DayCount[] | null>(null);
  const [checked, setChecked] = useState<CheckedAnswer | null>(null);  // a numeric card's typed answer
  const shownAt = useRef(Date.now());
  const reviewIdRef = useRef(newId());

  const load = useCallback(async () => {
    const query = new URLSearchParams({ limit: "20" });
    if (deck) query.set("deck", deck);
    const next = await api<DueQueue>(`/flashcards/due/?${query}`);
    setQueue(next);
    setRevealed(false);
    setChecked(null);
    setNoteDraft(null);
    setEditing(false);
    shownAt.current = Date.now();  // the time on a card runs from when it is shown to when it is rated
    reviewIdRef.current = newId();
    if (next.cards.length === 0) setForecast((await api<Stats>("/flashcards/stats/")).forecast);
  }, [deck]);
  useEffect(() => { void load().catch((e: Error) => setError(e.message)); }, [load]);

  const card = queue?.cards[0];
  const question = useQuestionCard(card, { revealed, checked: checked !== null });
  const patchCard = (cardId: number, patch: Partial<DueCard>) =>
    setQueue((q) => q && { ...q, cards: q.cards.map((c) => (c.card_id === cardId ? { ...c, ...patch } : c)) });
  // One action at a time: a second key press while one is in flight must not rate (or bury) the card again.
  const busy = useRef(false);
  const act = useCallback(async (work: () => Promise<void>) => {
    if (busy.current) return;
    busy.current = true;
    try { await work(); } catch (e) { setError(e instanceof ApiError ? e.message : String(e)); } finally { busy.current = false; }
  }, []);
  const rate = useCallback((rating: number) => act(async () => {
    if (!card) return;
    const durationMs = Math.min(Date.now() - shownAt.current, 86_400_000);
    // One id per card shown: a rating sent again after a failure is the same review, stored once.
    const reviewId = reviewIdRef.current;
    try {
      await retryWhileUnavailable(
        () => api(`/flashcards/${card.card_id}/review/`, { method: "POST", body: { rating, review_id: reviewId, duration_ms: durationMs } }),
        (attempt, attempts) => setMessage(`The server is busy; sending your answer again (try ${attempt} of ${attempts})…`));
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 503)) throw e;
      setMessage("Your answer is not saved yet: the server is still busy. Rate the card again to resend it.");
      return;
    }
    await load();  // the figures change with the next card, not before it
    setUndoStack((s) => [...s, { kind: "review", cardId: card.card_id, reviewId, rating, durationMs }]);
    setSession((s) => ({ reviewed: s.reviewed + 1, again: s.again + (rating === 1 ? 1 : 0), timeMs: s.timeMs + durationMs, lastMs: durationMs }));
    setMessage("");
  }), [act, card, load]);
  const hide = useCallback((kind: "suspend" | "bury") => act(async () => {
    if (!card) return;
    await api(`/flashcards/${card.card_id}/${kind}/`, { method: "POST" });
    setUndoStack((s) => [...s, { kind, cardId: card.card_id }]);
    await load();
    setMessage(kind === "bury" ? "Buried until tomorrow." : "Suspended.");
  }), [act, card, load]);
  const undo = useCallback(() => act(async () => {
    const last = undoStack[undoStack.length - 1];
    if (!last) return;
    await api(`/flashcards/${last.cardId}/${last.kind === "review" ? "undo" : last.kind === "bury" ? "unbury" : "unsuspend"}/`,
      { method: "POST", body: last.kind === "review" ? { review_id: last.reviewId } : undefined });
    await load();
    if (last.kind === "review") {
      setSession((s) => ({ reviewed: Math.max(0, s.reviewed - 1), again: Math.max(0, s.again - (last.rating === 1 ? 1 : 0)),
        timeMs: Math.max(0, s.timeMs - (last.durationMs ?? 0)), lastMs: null }));
    }
    setUndoStack((s) => s.slice(0, -1));
    setMessage(`Undone: ${last.kind}.`);
  }), [act, undoStack, load]);
  const flag = useCallback((value: number) => act(async () => {
    if (!card) return;
    const next = card.flag === value ? 0 : value;  // the same flag again clears it, as in Anki
    const body = await api<{ flag: number }>(`/flashcards/${card.card_id}/flag/`, { method: "POST", body: { flag: next } });
    patchCard(card.card_id, { flag: body.flag });
  }), [act, card]);
  const saveNote = (event: React.FormEvent) => {
    event.preventDefault();
    void act(async () => {
      if (!card || noteDraft === null) return;
      const body = await api<{ note: string }>(`/flashcards/${card.card_id}/note/`, { method: "PUT", body: { note: noteDraft } });
      patchCard(card.card_id, { note: body.note });
      setNoteDraft(null);
      setMessage(body.note ? "Note saved." : "Note removed.");
    });
  };

  // Before paint: a key pressed the moment a card shows already reaches a handler that knows it.
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
      const flagKey = /^Digit([0-7])$/.exec(event.code);
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z") { event.preventDefault(); void undo(); }
      else if (event.ctrlKey || event.metaKey || event.altKey) return;
      else if (event.shiftKey && flagKey && card) { event.preventDefault(); void flag(Number(flagKey[1])); }
      else if (revealKey(event) && card && !revealed) { event.preventDefault(); setRevealed(true); }
      else if (revealed && ["1", "2", "3", "4"].includes(event.key)) { event.preventDefault(); void rate(Number(event.key)); }
      else if (event.key === "z") { event.preventDefault(); void undo(); }
      else if ((event.key === "b" || event.key === "-") && card) { event.preventDefault(); void hide("bury"); }
      else if (event.key === "s" && card) { event.preventDefault(); void hide("suspend"); }
      else if (event.key === "n" && card) { event.preventDefault(); setNoteDraft(card.note); }
      else if (event.key === "e" && card?.own) { event.preventDefault(); setEditing(true); }
      else if (event.key === "o" && card?.links.length) { event.preventDefault(); window.open(card.links[0].path, "_blank", "noopener"); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [card, revealed, rate, undo, flag, hide]);

  if (error) return <p role="alert" className="error">{error}</p>;
  if (!queue) return <p>Loading…</p>;
  const left = queue.counts.learning + queue.counts.review + queue.counts.new;
  const total = session.reviewed + left;
  const { today } = queue;
  return (
    <section className="review" aria-live="polite">
      <div className="muted" data-testid="queue-progress">
        Reviewed {session.reviewed} · left today: {queue.counts.new} new, {queue.counts.learning} learning, {queue.counts.review} due
      </div>
      <div className="progress" aria-hidden="true"><span style={{ width: `${total ? (100 * session.reviewed) / total : 100}%` }} /></div>
      <div className="review-figures" data-testid="session-figures">
        <span data-testid="daily-goal">
          {today.daily_goal ? <>Today {today.reviews} / {today.daily_goal}{today.reviews >= today.daily_goal ? " — goal reached ✓" : ""}</> : <>Today {today.reviews} reviews</>}
        </span>
        {today.daily_goal > 0 && <progress max={today.daily_goal} value={Math.min(today.reviews, today.daily_goal)} aria-label="Daily goal" />}
        <span data-testid="again-count">Again this session: {session.again}</span>
        <span data-testid="card-time">
          {session.lastMs !== null ? `Last card ${seconds(session.lastMs)}` : "Last card —"}
          {session.reviewed > 0 && ` · ${seconds(session.timeMs / session.reviewed)} a card this session`}
          {today.timed_reviews > 0 && ` · ${seconds(today.time_ms / today.timed_reviews)} a card today`}
        </span>
      </div>
      {message && <p role="status">{message}</p>}
      {card ? (
        <article className={`flashcard${card.flag ? ` flagged flag-${card.flag}` : ""}`} data-testid="flashcard" data-card-id={card.card_id}
          data-kind={question.question?.kind ?? card.source_type} data-answer-key={question.key ? "ready" : undefined}>
          {card.flag > 0 && <span className={`badge flag-badge flag-${card.flag}`} data-testid="card-flag">{FLAGS[card.flag]} flag</span>}
          {card.source_changed && <span className="badge">updated</span>}
          {card.leech && <span className="badge">leech</span>}
          <div className="front" data-testid="card-front">
            <CardText html={card.front_html} text={card.front} />
            <QuestionFront cardId={card.card_id} state={question} revealed={revealed}
              onChecked={(answer) => { setChecked(answer); setRevealed(true); }} />
          </div>
          {revealed ? (
            <>
              <hr />
              <div className="back" data-testid="card-back">
                <QuestionBack state={question} checked={checked} ratingLabel={ratingLabel} />
                <CardText html={card.back_html} text={card.back} />
              </div>
              <div className="rating-buttons">
                {RATINGS.map((r) => (
                  <button key={r.value} type="button" onClick={() => void rate(r.value)}
                    className={checked?.check.suggested_rating === r.value ? "suggested" : undefined}>
                    <kbd>{r.value}</kbd> {r.label} <span className="muted">{formatInterval(card.intervals[String(r.value)])}</span>
                    {checked?.check.suggested_rating === r.value && <span className="badge" data-testid="suggested-rating">suggested</span>}
                  </button>
                ))}
              </div>
            </>
          ) : question.loading ? null : (
            <button type="button" className="primary" onClick={() => setRevealed(true)}>Show answer <kbd>Space</kbd></button>
          )}
          {card.note && noteDraft === null && <p className="card-note" data-testid="card-note"><strong>Your note:</strong> {card.note}</p>}
          {editing && (
            <OwnCardForm cardId={card.card_id} onCancel={() => setEditing(false)}
              onSaved={(saved) => { patchCard(card.card_id, { front: saved.front, front_html: saved.front_html, back_html: saved.back_html }); setEditing(false); setMessage("Card saved."); }} />
          )}
          {noteDraft !== null && (
            <form className="note-form" onSubmit={saveNote}>
              <label htmlFor="card-note">Your private note</label>
              <textarea id="card-note" value={noteDraft} maxLength={2000} rows={3} autoFocus
                onChange={(e) => setNoteDraft(e.target.value)} onKeyDown={(e) => { if (e.key === "Escape") setNoteDraft(null); }} />
              <button type="submit">Save note</button> <button type="button" onClick={() => setNoteDraft(null)}>Cancel</button>
            </form>
          )}
          <div className="card-actions" aria-label="Card actions">
            <button type="button" onClick={() => void hide("bury")}>Bury <kbd>b</kbd></button>
            <button type="button" onClick={() => void hide("suspend")}>Suspend <kbd>s</kbd></button>
            <button type="button" onClick={() => setNoteDraft(card.note)}>Note <kbd>n</kbd></button>
            {card.own && <button type="button" onClick={() => setEditing(true)}>Edit <kbd>e</kbd></button>}
            <label>Flag <kbd>Shift+1–7</kbd>{" "}
              <select aria-label="Flag" value={card.flag} onChange={(e) => void flag(Number(e.target.value))}>
                {FLAGS.map((name, value) => <option key={name} value={value}>{name}</option>)}
              </select>
            </label>
            {card.links.map((link, index) => (
              <a key={link.path} href={link.path} target="_blank" rel="noopener" data-testid="source-link">
                {link.kind === "chapter" ? `Chapter: ${link.title}` : `Open ${link.title.toLowerCase()}`}{index === 0 && <> <kbd>o</kbd></>}
              </a>
            ))}
          </div>
        </article>
      ) : (
        <div data-testid="done-for-today">
          <h2>Done for today</h2>
          {queue.next_learning_due && <p>More learning cards at {new Date(queue.next_learning_due).toLocaleTimeString()}.</p>}
          {forecast && <><h3>Coming up</h3><ForecastChart data={forecast} /></>}
        </div>
      )}
      <p className="muted" data-testid="shortcuts">
        Keys: Space reveal · 1–4 rate · z or Ctrl+Z undo{undoStack.length ? "" : " (nothing to undo)"} · b bury · s suspend ·
        Shift+1–7 flag (Shift+0 clears) · n note · e edit your own card · o open the source
      </p>
    </section>
  );
}

interface CramCard extends Omit<DueCard, "intervals"> { retrievability: number | null }
const CRAM_AGAIN = "Again";
const CRAM_KNOWN = "Got it";
interface CramQueue { deck: string; title: string; reviewed_cards: number; new_cards: number; cards: CramCard[] }

/** Cram before the interview: the deck's weakest cards, again and again until each is known; nothing is sent back,
 * so the schedule stays as it was. A card made from a question shows what it offers, as in review, and a numeric one
 * asks for the number and grades it (checking changes no schedule either); a correct answer suggests "Got it". */
function Cram() {
  const [params] = useSearchParams();
  const deck = params.get("deck") || "all";
  const [includeNew, setIncludeNew] = useState(false);
  const [data, setData] = useState<CramQueue | null>(null);
  const [pile, setPile] = useState<CramCard[]>([]);
  const [revealed, setRevealed] = useState(false);
  const [tally, setTally] = useState({ known: 0, again: 0 });
  const [checked, setChecked] = useState<CheckedAnswer | null>(null);  // a numeric card's typed answer
  const [error, setError] = useState("");
  useEffect(() => {
    const query = new URLSearchParams({ deck, limit: "20", include_new: String(includeNew) });
    api<CramQueue>(`/flashcards/cram/?${query}`)
      .then((next) => { setData(next); setPile(next.cards); setRevealed(false); setChecked(null); setTally({ known: 0, again: 0 }); })
      .catch((e: Error) => setError(e.message));
  }, [deck, includeNew]);
  const card = pile[0];
  const question = useQuestionCard(card, { revealed, checked: checked !== null });
  const answer = useCallback((known: boolean) => {
    if (!card) return;
    setPile((p) => (known ? p.slice(1) : [...p.slice(1), p[0]]));  // not known: back of the pile
    setTally((t) => (known ? { ...t, known: t.known + 1 } : { ...t, again: t.again + 1 }));
    setRevealed(false);
    setChecked(null);
  }, [card]);
  const suggestKnown = checked ? checked.check.suggested_rating >= 3 : null;  // Good or better: "Got it"
  // Before paint: a key pressed the moment a card shows already reaches a handler that knows it.
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (["INPUT", "TEXTAREA", "SELECT"].includes((event.target as HTMLElement).tagName) || event.ctrlKey || event.metaKey) return;
      if (revealKey(event) && card && !revealed) { event.preventDefault(); setRevealed(true); }
      else if (revealed && event.key === "1") { event.preventDefault(); answer(false); }
      else if (revealed && event.key === "3") { event.preventDefault(); answer(true); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [card, revealed, answer]);
  if (error) return <p role="alert" className="error">{error}</p>;
  if (!data) return <p>Loading…</p>;
  return (
    <section className="review cram">
      <h2>Cram: {data.title}</h2>
      <p className="muted" data-testid="cram-summary">
        The {data.cards.length} weakest of {data.reviewed_cards} studied cards{includeNew ? ` (and ${data.new_cards} new)` : ""}, lowest recall first.
        Cramming does not change your schedule.
      </p>
      <label><input type="checkbox" checked={includeNew} onChange={(e) => setIncludeNew(e.target.checked)} /> Include new cards</label>
      <div className="review-figures" data-testid="cram-progress">Known {tally.known} · again {tally.again} · {pile.length} left</div>
      {card ? (
        <article className="flashcard" data-testid="cram-card" data-card-id={card.card_id}
          data-kind={question.question?.kind ?? card.source_type} data-answer-key={question.key ? "ready" : undefined}>
          <span className="badge" data-testid="cram-recall">
            {card.retrievability === null ? "new" : `recall now ${Math.round(card.retrievability * 100)}%`} · {card.lapses} lapses
          </span>
          <div className="front" data-testid="card-front">
            <CardText html={card.front_html} text={card.front} />
            <QuestionFront cardId={card.card_id} state={question} revealed={revealed}
              onChecked={(typed) => { setChecked(typed); setRevealed(true); }} />
          </div>
          {revealed ? (
            <>
              <hr />
              <div className="back" data-testid="card-back">
                <QuestionBack state={question} checked={checked} ratingLabel={(rating) => (rating >= 3 ? CRAM_KNOWN : CRAM_AGAIN)} />
                <CardText html={card.back_html} text={card.back} />
              </div>
              {card.note && <p className="card-note"><strong>Your note:</strong> {card.note}</p>}
              <div className="rating-buttons">
                {([false, true] as const).map((known) => (
                  <button key={String(known)} type="button" onClick={() => answer(known)}
                    className={suggestKnown === known ? "suggested" : undefined}>
                    <kbd>{known ? 3 : 1}</kbd> {known ? CRAM_KNOWN : CRAM_AGAIN}
                    {suggestKnown === known && <span className="badge" data-testid="suggested-rating">suggested</span>}
                  </button>
                ))}
              </div>
            </>
          ) : question.loading ? null : (
            <button type="button" className="primary" onClick={() => setRevealed(true)}>Show answer <kbd>Space</kbd></button>
          )}
          <div className="card-actions">
            {card.links.map((link) => <a key={link.path} href={link.path} target="_blank" rel="noopener">{link.kind === "chapter" ? `Chapter: ${link.title}` : `Open ${link.title.toLowerCase()}`}</a>)}
          </div>
        </article>
      ) : (
        <p data-testid="cram-done">{data.cards.length ? "All known. Good luck in the interview!" : "No studied cards in this deck yet."}</p>
      )}
      <p className="muted">Keys: Space reveal · 1 again (back of the pile) · 3 got it</p>
    </section>
  );
}

function StatsPage() {
  const [stats, setStats] = useState<Stats | null>(null);
  useEffect(() => { void api<Stats>("/flashcards/stats/").then(setStats); }, []);
  if (!stats) return <p>Loading…</p>;
  const total = stats.reviews_per_day.reduce((sum, d) => sum + d.count, 0);
  return (
    <section>
      <h2>Statistics</h2>
      <p data-testid="stats-summary">
        {total} reviews in the last year · streak {stats.streak} day{stats.streak === 1 ? "" : "s"} · average recall now{" "}
        {stats.average_retrievability === null ? "— (no card studied yet)"
          : `${Math.round(stats.average_retrievability * 100)}% (FSRS's prediction for the cards you have studied; a card just learned starts near 100 %)`}
      </p>
      <p>Cards: {Object.entries(stats.card_counts).map(([k, v]) => `${k.replace("_", " ")} ${v}`).join(" · ")}</p>
      <h3>Reviews per day</h3>
      <Heatmap data={stats.reviews_per_day} />
      <h3>Due in the next 30 days</h3>
      <ForecastChart data={stats.forecast} />
      <h3>True retention</h3>
      <RetentionChart data={stats.true_retention} />
    </section>
  );
}

type ApkgImportOutput = components["schemas"]["ApkgImportOutput"];
type CsvImportOutput = components["schemas"]["CsvImportOutput"];
type ImportJob = components["schemas"]["ImportJob"];
type ApkgSkippedFile = components["schemas"]["ApkgSkippedFile"];

/** A learner's own Anki package: its notes become their own cards, with scheduling and review history, and the
 * images they show become their card images (files left out are listed with why). A CSV file (the kit's own export,
 * or Front and Back columns) brings its rows back in place or as cards of their own. */
function AnkiImport() {
  const [message, setMessage] = useState("");
  const [leftOut, setLeftOut] = useState<ApkgSkippedFile[]>([]);
  const [error, setError] = useState("");
  const upload = async (file: File | undefined) => {
    if (!file) return;
    setMessage("Importing…"); setError(""); setLeftOut([]);
    try {
      // The server stores the file and imports it in the background: poll the job until it is done.
      const format = file.name.toLowerCase().endsWith(".csv") ? "csv" : "apkg";
      let job = await api<ImportJob>(`/flashcards/imports/?format=${format}`, { method: "POST", raw: file });
      while (job.status === "queued" || job.status === "running") {
        setMessage(`Importing “${file.name}”… ${Math.round(job.progress * 100)} %`);
        await new Promise((resolve) => window.setTimeout(resolve, 1000));
        job = await api<ImportJob>(`/flashcards/imports/${job.id}/`);
      }
      if (job.status === "failed" || !job.result) throw new Error(job.error?.detail ?? "The import failed; nothing was changed.");
      if (format === "csv") {
        const rows = job.result as CsvImportOutput;
        setMessage(`Imported “${file.name}”: ${rows.cards} cards added (${rows.own_cards} of your own), ${rows.updated} schedules updated${rows.skipped ? `, ${rows.skipped} rows you had already` : ""}.`);
        return;
      }
      const result = job.result as ApkgImportOutput;
      const decks = result.decks.map((deck) => `${deck.name || "no deck"} (${deck.cards})`).join(", ");
      const { images, skipped: filesLeftOut } = result.media;
      const media = `${images ? ` ${images} image${images === 1 ? "" : "s"} added to your card images.` : ""}${filesLeftOut ? ` ${filesLeftOut} media file${filesLeftOut === 1 ? "" : "s"} left out (the cards keep their text):` : ""}`;
      const updated = result.updated ? ` ${result.updated} of the kit's cards took the schedule and flag you gave them in Anki.` : "";
      setMessage(`Imported ${result.cards} cards and ${result.reviews} reviews from “${file.name}”${decks ? ` into ${decks}` : ""}${result.skipped ? ` (${result.skipped} imported before, left as they are)` : ""}.${updated}${media}`);
      setLeftOut(result.media.skipped_files);
    } catch (e) { setMessage(""); setError(e instanceof ApiError ? e.message : String(e)); }
  };
  return (
    <div className="field">
      <label htmlFor="anki-import">Import from Anki (.apkg) or a CSV file (.csv), at most 20 MB</label>
      <input id="anki-import" type="file" accept=".apkg,.csv" onChange={(e) => void upload(e.target.files?.[0])} />
      {message && <p role="status" data-testid="anki-import-status">{message}</p>}
      {leftOut.length > 0 && (
        <ul data-testid="anki-import-left-out" className="anki-left-out">
          {leftOut.map((file) => <li key={file.name}><code>{file.name}</code>: {file.reason}</li>)}
        </ul>
      )}
      {error && <p role="alert" className="error">{error}</p>}
    </div>
  );
}

type ExportJob = components["schemas"]["ExportJob"];
type ExportFormat = components["schemas"]["ExportFormatEnum"];
const EXPORT_LABELS: [ExportFormat, string][] = [["json", "Export JSON"], ["csv", "Export CSV"], ["apkg", "Export Anki deck"]];
const EXPORTING = (job: ExportJob) => job.status === "queued" || job.status === "running";

/** The collection as a file, written in the background: start an export, watch its progress, then download it. The
 * latest export (kept a day) is shown again when the page opens, still running or ready. */
function CollectionExport() {
  const [job, setJob] = useState<ExportJob | null>(null);
  const [error, setError] = useState("");
  const follow = useCallback(async (started: ExportJob) => {
    let current = started;
    setJob(current);
    while (EXPORTING(current)) {
      await new Promise((resolve) => window.setTimeout(resolve, 1000));
      current = await api<ExportJob>(`/flashcards/exports/${current.id}/`);
      setJob(current);
    }
  }, []);
  useEffect(() => {
    void api<ExportJob[]>("/flashcards/exports/").then((jobs) => { if (jobs[0]) void follow(jobs[0]); });
  }, [follow]);
  const start = async (format: ExportFormat) => {
    setError("");
    try {
      await follow(await api<ExportJob>("/flashcards/exports/", { method: "POST", body: { format } }));
    } catch (e) { setError(e instanceof ApiError ? e.message : String(e)); }
  };
  const busy = job !== null && EXPORTING(job);
  return (
    <div className="field">
      <div className="collection-export">
        {EXPORT_LABELS.map(([format, label]) => (
          <button key={format} type="button" disabled={busy} onClick={() => void start(format)}>{label}</button>
        ))}
      </div>
      {job && (
        <p role="status" data-testid="export-status">
          {EXPORTING(job) && `Exporting ${job.format.toUpperCase()}… ${Math.round(job.progress * 100)} %`}
          {job.status === "failed" && (job.error?.detail ?? "The export failed.")}
          {job.status === "done" && job.file_url && (
            <>{job.cards} cards ready: <a href={job.file_url} download={job.filename}>Download {job.filename}</a>{" "}
              <span className="muted">(kept until {new Date(job.expires_at ?? "").toLocaleString()})</span></>
          )}
        </p>
      )}
      {error && <p role="alert" className="error">{error}</p>}
    </div>
  );
}

function SettingsPage() {
  const [form, setForm] = useState<SrsSettings | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => { void api<SrsSettings>("/srs/settings/").then(setForm); }, []);
  if (!form) return <p>Loading…</p>;
  const set = (patch: Partial<SrsSettings>) => { setForm({ ...form, ...patch }); setSaved(false); };
  const steps = (text: string) => text.split(/[\s,]+/).filter(Boolean).map(Number);
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      const { parameters: _ignored, ...body } = form;
      setForm(await api<SrsSettings>("/srs/settings/", { method: "PATCH", body }));
      setError(null);
      setSaved(true);
    } catch (e) { if (e instanceof ApiError) setError(e); }
  };
  const field = (name: keyof SrsSettings, label: string, input: React.ReactNode) => (
    <div className="field">
      <label htmlFor={`srs-${name}`}>{label}</label>
      {input}
      {error?.fieldMessage(name) && <span className="field-error" role="alert">{error.fieldMessage(name)}</span>}
    </div>
  );
  const num = (name: keyof SrsSettings, step = "1") => (
    <input id={`srs-${name}`} type="number" step={step} value={form[name] as number}
      onChange={(e) => set({ [name]: Number(e.target.value) } as Partial<SrsSettings>)} />
  );
  return (
    <form className="auth-form" onSubmit={(e) => void save(e)}>
      <h2>Review settings</h2>
      {field("desired_retention", "Desired retention (0.70–0.99)", num("desired_retention", "0.01"))}
      {field("new_cards_per_day", "New cards per day", num("new_cards_per_day"))}
      {field("max_reviews_per_day", "Maximum reviews per day", num("max_reviews_per_day"))}
      {field("learning_steps", "Learning steps (minutes)", <input id="srs-learning_steps" value={form.learning_steps.join(" ")}
        onChange={(e) => set({ learning_steps: steps(e.target.value) })} />)}
      {field("relearning_steps", "Relearning steps (minutes)", <input id="srs-relearning_steps" value={form.relearning_steps.join(" ")}
        onChange={(e) => set({ relearning_steps: steps(e.target.value) })} />)}
      {field("maximum_interval_days", "Maximum interval (days)", num("maximum_interval_days"))}
      {field("day_rollover_hour", "Next day starts at (hour)", num("day_rollover_hour"))}
      {field("time_zone", "Time zone", <input id="srs-time_zone" value={form.time_zone} onChange={(e) => set({ time_zone: e.target.value })} />)}
      {field("leech_threshold", "Leech after lapses", num("leech_threshold"))}
      {field("daily_goal", "Daily goal (reviews a day, 0 for none)", num("daily_goal"))}
      <label><input type="checkbox" checked={form.fuzzing} onChange={(e) => set({ fuzzing: e.target.checked })} /> Fuzz intervals</label>
      <p className="muted">FSRS parameters: {form.parameters.length ? "optimized for you" : "defaults"}.{" "}
        <OptimizeButton preset={null} label="the Default preset" /></p>
      <button type="submit" className="primary">Save</button>
      {saved && <p role="status">Saved.</p>}
      <AnkiImport />
      <CollectionExport />
      <details className="muted" data-testid="anki-round-trip-help">
        <summary>Studying in both the kit and Anki</summary>
        <p>Progress made in Anki comes back here: export from Anki with scheduling and import the file above; the
          kit's own cards are matched by their note IDs, so nothing is added twice, and reviews you did in Anki join
          each card's history.</p>
        <p>Anki does not update cards it already holds when you import a newer Anki deck from the kit, so progress
          made here after your first export stays out of a collection that has the deck. To bring it over: import
          Anki's export here first (so the kit holds everything Anki knows), then in Anki delete the
          “LLM-serving interview kit” deck with its cards, and import the kit's new Anki deck.</p>
      </details>
    </form>
  );
}

export default function FlashcardsArea() {
  const { user, loading } = useAuth();
  if (loading) return <p>Loading…</p>;
  if (!user) return <section><h1>Flashcards</h1><p><Link to="/login">Sign in</Link> to review flashcards.</p></section>;
  return (
    <section>
      <h1>Flashcards</h1>
      <nav aria-label="Flashcards" className="subnav">
        <NavLink to="/flashcards" end>Decks</NavLink> · <NavLink to="/flashcards/review">Review</NavLink> ·{" "}
        <NavLink to="/flashcards/browse">Browse</NavLink> · <NavLink to="/flashcards/cram">Cram</NavLink> ·{" "}
        <NavLink to="/flashcards/add">Add card</NavLink> ·{" "}
        <NavLink to="/flashcards/stats">Stats</NavLink> · <NavLink to="/flashcards/settings">Settings</NavLink>
      </nav>
      <Routes>
        <Route index element={<DeckList />} />
        <Route path="review" element={<Review />} />
        <Route path="browse" element={<Browse />} />
        <Route path="cram" element={<Cram />} />
        <Route path="add" element={<AddCardPage />} />
        <Route path="stats" element={<StatsPage />} />
        <Route path="settings" element={<><SettingsPage /><Presets /></>} />
      </Routes>
    </section>
  );
}

/** A card side: the server's sanitized HTML, or, when sanitizing left nothing, the author's text as plain text (never
 * inserted as HTML: it may hold markup the sanitizer removed for good reason). */
function CardText({ html, text }: { html: string; text: string }) {
  return html ? <div dangerouslySetInnerHTML={{ __html: html }} /> : <div className="plain-text">{text}</div>;
}
