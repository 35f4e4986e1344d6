// Chapter text with glossary cards. The chapter HTML is written into the page once per chapter and never touched by
// React again, so opening, moving or closing a card cannot re-render (and reset) the text under the pointer.
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type MouseEvent as ReactMouseEvent } from "react";
import { Link } from "react-router-dom";

export interface TermRef { slug: string; term: string; definition: string }

interface OpenCard {
  slug: string;
  term: string;
  definition: string;
  anchor: HTMLElement;
  top: number;
  left: number;
  /** Opened by click, tap or Enter: stays until Escape, a click elsewhere or another term. */
  pinned: boolean;
}

const CARD_ID = "glossary-card";
const CLOSE_DELAY_MS = 150;

function termOf(target: EventTarget | null): HTMLElement | null {
  return ((target as Element | null)?.closest?.(".glossary-term") as HTMLElement | null) ?? null;
}

/** The chapter body: set once per `html`, then prepared for cards (definition kept, native tooltip dropped). */
export const ChapterBody = memo(function ChapterBody({ html, bodyRef, onClick }: {
  html: string;
  bodyRef: React.RefObject<HTMLDivElement | null>;
  onClick: (event: ReactMouseEvent<HTMLDivElement>) => void;
}) {
  useLayoutEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    body.innerHTML = html; // sanitized on the server (Markdown through an allow-list)
    body.querySelectorAll<HTMLElement>(".glossary-term").forEach((span) => {
      if (span.title) span.dataset.definition = span.title;
      span.removeAttribute("title");
      span.setAttribute("role", "button");
      span.setAttribute("aria-expanded", "false");
      span.setAttribute("aria-controls", CARD_ID);
      if (!span.hasAttribute("tabindex")) span.tabIndex = 0;
    });
  }, [html, bodyRef]);
  return <div ref={bodyRef} className="chapter-body" data-testid="chapter-body" onClick={onClick} />;
});

/** Hover, focus and tap cards for the `.glossary-term` spans inside `container`. */
export function GlossaryCards({ container, terms }: { container: React.RefObject<HTMLElement | null>; terms: TermRef[] }) {
  const [card, setCard] = useState<OpenCard | null>(null);
  const cardRef = useRef<HTMLDivElement>(null);
  const closeTimer = useRef<number | undefined>(undefined);
  const current = useRef<OpenCard | null>(null);
  current.current = card;
  const known = useRef(new Map<string, TermRef>());
  known.current = new Map(terms.map((t) => [t.slug, t]));

  const cancelClose = () => window.clearTimeout(closeTimer.current);
  const close = useCallback((returnFocus = false) => {
    window.clearTimeout(closeTimer.current);
    const open = current.current;
    if (!open) return;
    open.anchor.setAttribute("aria-expanded", "false");
    open.anchor.removeAttribute("aria-describedby");
    if (returnFocus) open.anchor.focus({ preventScroll: true });
    setCard(null);
  }, []);
  const closeSoon = useCallback(() => {
    window.clearTimeout(closeTimer.current);
    closeTimer.current = window.setTimeout(() => close(), CLOSE_DELAY_MS);
  }, [close]);

  const open = useCallback((span: HTMLElement, pinned: boolean) => {
    window.clearTimeout(closeTimer.current);
    const previous = current.current;
    if (previous && previous.anchor === span) {
      if (pinned && !previous.pinned) setCard({ ...previous, pinned: true });
      return;
    }
    if (previous) {
      previous.anchor.setAttribute("aria-expanded", "false");
      previous.anchor.removeAttribute("aria-describedby");
    }
    const slug = span.dataset.term ?? "";
    const entry = known.current.get(slug);
    const rect = span.getBoundingClientRect();
    const width = Math.min(340, window.innerWidth - 16);
    span.setAttribute("aria-expanded", "true");
    span.setAttribute("aria-describedby", CARD_ID);
    setCard({
      slug,
      term: entry?.term ?? span.textContent ?? slug,
      definition: entry?.definition ?? span.dataset.definition ?? "",
      anchor: span,
      top: rect.bottom + window.scrollY + 6,
      left: Math.max(8, Math.min(rect.left + window.scrollX, window.scrollX + window.innerWidth - width - 8)),
      pinned,
    });
  }, []);

  useEffect(() => {
    const body = container.current;
    if (!body) return;
    const over = (event: MouseEvent) => {
      const span = termOf(event.target);
      if (span) open(span, false);
    };
    const out = (event: MouseEvent) => {
      const span = termOf(event.target);
      if (!span || span.contains(event.relatedTarget as Node | null)) return;
      if (cardRef.current?.contains(event.relatedTarget as Node | null)) return;
      if (!current.current?.pinned) closeSoon();
    };
    const focusIn = (event: FocusEvent) => {
      const span = termOf(event.target);
      if (span) open(span, false);
    };
    const focusOut = (event: FocusEvent) => {
      if (!termOf(event.target)) return;
      if (cardRef.current?.contains(event.relatedTarget as Node | null)) return;
      if (!current.current?.pinned) close();
    };
    const click = (event: MouseEvent) => {
      const span = termOf(event.target);
      if (!span) return;
      event.preventDefault();
      open(span, true);
    };
    const key = (event: KeyboardEvent) => {
      const span = termOf(event.target);
      if (!span || (event.key !== "Enter" && event.key !== " ")) return;
      event.preventDefault();
      open(span, true);
      // Like a toggletip: the card's link is the next stop for the keyboard.
      window.setTimeout(() => cardRef.current?.querySelector<HTMLElement>("a")?.focus({ preventScroll: true }), 0);
    };
    body.addEventListener("mouseover", over);
    body.addEventListener("mouseout", out);
    body.addEventListener("focusin", focusIn);
    body.addEventListener("focusout", focusOut);
    body.addEventListener("click", click);
    body.addEventListener("keydown", key);
    return () => {
      body.removeEventListener("mouseover", over);
      body.removeEventListener("mouseout", out);
      body.removeEventListener("focusin", focusIn);
      body.removeEventListener("focusout", focusOut);
      body.removeEventListener("click", click);
      body.removeEventListener("keydown", key);
    };
  }, [container, open, close, closeSoon]);

  // Escape closes from anywhere; a click or tap outside the term and the card closes a pinned card.
  useEffect(() => {
    if (!card) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      const inCard = cardRef.current?.contains(document.activeElement);
      close(inCard || document.activeElement === card.anchor);
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (card.anchor.contains(target) || cardRef.current?.contains(target)) return;
      close();
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [card, close]);

  useEffect(() => () => window.clearTimeout(closeTimer.current), []);

  if (!card) return null;
  return (
    <div
      id={CARD_ID}
      ref={cardRef}
      role="tooltip"
      className="glossary-card"
      data-term={card.slug}
      style={{ top: card.top, left: card.left }}
      onMouseEnter={cancelClose}
      onMouseLeave={() => { if (!card.pinned) closeSoon(); }}
      onBlur={(event) => {
        const next = event.relatedTarget as Node | null;
        if (!cardRef.current?.contains(next) && next !== card.anchor) close();
      }}
    >
      <strong>{card.term}</strong>
      <p>{card.definition}</p>
      <Link to={`/glossary/${card.slug}`} onClick={() => close()}>Open “{card.term}” in the glossary</Link>
    </div>
  );
}
