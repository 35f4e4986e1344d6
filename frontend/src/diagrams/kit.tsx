// Shared pieces of the live diagrams: the frame (title, controls, legend, caption, Lab link), sliders, a player and
// log/linear scales. Colours and patterns are the one concept map (lib/concepts.ts).
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Link } from "react-router-dom";
import type { SimulatorResults } from "../areas/lab/lib";
import registry from "../generated/diagrams.json";
import { api, ApiError } from "../lib/api";
import { CONCEPTS, conceptColor, PATTERN_INK, type Concept } from "../lib/concepts";

export type Params = Record<string, string | number>;
export type { Concept };
export { CONCEPTS };
export const color = conceptColor;

/** Pattern definitions, rendered once per page (by the mounter); shapes reference them as url(#dp-<pattern>). The
 * patterns are the concept map's (lib/concepts.ts), drawn in SVG. */
export function PatternDefs() {
  const stroke = { stroke: PATTERN_INK, strokeWidth: 1.5 };
  const dot = PATTERN_INK;
  return (
    <svg width="0" height="0" style={{ position: "absolute" }} aria-hidden="true" focusable="false">
      <defs>
        <pattern id="dp-diag" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" {...stroke} /></pattern>
        <pattern id="dp-rdiag" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><line x1="0" y1="0" x2="0" y2="6" {...stroke} /></pattern>
        <pattern id="dp-vert" width="5" height="5" patternUnits="userSpaceOnUse"><line x1="2" y1="0" x2="2" y2="5" {...stroke} /></pattern>
        <pattern id="dp-horiz" width="5" height="5" patternUnits="userSpaceOnUse"><line x1="0" y1="2" x2="5" y2="2" {...stroke} /></pattern>
        <pattern id="dp-grid" width="5" height="5" patternUnits="userSpaceOnUse"><path d="M2 0V5M0 2H5" strokeWidth={1} stroke={stroke.stroke} /></pattern>
        <pattern id="dp-dots" width="5" height="5" patternUnits="userSpaceOnUse"><circle cx="2.5" cy="2.5" r="1.1" fill={dot} /></pattern>
        <pattern id="dp-rings" width="6" height="6" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="1.6" fill="none" stroke={dot} strokeWidth={0.8} /></pattern>
        <pattern id="dp-cross" width="6" height="6" patternUnits="userSpaceOnUse"><path d="M0 0L6 6M6 0L0 6" {...stroke} /></pattern>
        <pattern id="dp-checker" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="3" height="3" fill={dot} /><rect x="3" y="3" width="3" height="3" fill={dot} /></pattern>
      </defs>
    </svg>
  );
}

/** A rectangle in a concept's colour with its pattern over it. */
export function Block({ concept, x, y, width, height, title, opacity = 1, testid }: {
  concept: Concept; x: number; y: number; width: number; height: number; title?: string; opacity?: number; testid?: string;
}) {
  const w = Math.max(width, 0), h = Math.max(height, 0);
  const pattern = CONCEPTS[concept].pattern;
  return (
    <g opacity={opacity} data-testid={testid} data-concept={concept}>
      <rect className="d-anim" x={x} y={y} width={w} height={h} fill={color(concept)}>{title && <title>{title}</title>}</rect>
      {pattern !== "solid" && <rect className="d-anim" x={x} y={y} width={w} height={h} fill={`url(#dp-${pattern})`} pointerEvents="none" />}
    </g>
  );
}

export function Legend({ items }: { items: (Concept | { concept: Concept; label: string })[] }) {
  return (
    <ul className="diagram-legend" aria-label="Legend" data-testid="diagram-legend">
      {items.map((item) => {
        const { concept, label } = typeof item === "string" ? { concept: item, label: CONCEPTS[item].label } : item;
        return (
          <li key={label} data-concept={concept}>
            <svg viewBox="0 0 14 14" aria-hidden="true"><Block concept={concept} x={0} y={0} width={14} height={14} /></svg>
            {label}
          </li>
        );
      })}
    </ul>
  );
}

/** Whether a CSS media query matches now, kept current as it changes. */
export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => typeof window !== "undefined" && !!window.matchMedia?.(query).matches);
  useEffect(() => {
    const media = window.matchMedia?.(query);
    if (!media) return;
    const on = () => setMatches(media.matches);
    on();
    media.addEventListener("change", on);
    return () => media.removeEventListener("change", on);
  }, [query]);
  return matches;
}

export function useReducedMotion(): boolean {
  return useMediaQuery("(prefers-reduced-motion: reduce)");
}

/** Steps 0..count-1 while playing (every `ms`). At rest the picture shows the last step (the outcome), or the first
 * where stepping through is the point. A diagram plays once by itself when it is scrolled into view (see
 * PlayerControls), unless the reader prefers reduced motion or has already moved it; with reduced motion, play jumps
 * straight to the last step. */
export function usePlayer(count: number, ms = 250, rest: "last" | "first" = "last") {
  const reduced = useReducedMotion();
  const restStep = rest === "last" ? count - 1 : 0;
  const [step, setStep] = useState(restStep);
  const [playing, setPlaying] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const touched = useRef(false);  // the reader (or the autoplay) has moved it: no autoplay after that
  useEffect(() => { setStep(restStep); setPlaying(false); }, [restStep]);
  useEffect(() => {
    if (!playing) return;
    if (reduced) { setStep(count - 1); setPlaying(false); return; }
    timer.current = window.setInterval(() => {
      setStep((s) => {
        if (s + 1 >= count - 1) { setPlaying(false); return count - 1; }
        return s + 1;
      });
    }, ms);
    return () => window.clearInterval(timer.current);
  }, [playing, reduced, count, ms]);
  const toggle = () => {
    touched.current = true;
    if (playing) { setPlaying(false); return; }
    if (reduced) { setStep(count - 1); return; }
    setStep((s) => (s >= count - 1 ? 0 : s));
    setPlaying(true);
  };
  /** Scrub to a step (pauses). */
  const seek = (s: number) => { touched.current = true; setPlaying(false); setStep(Math.max(0, Math.min(count - 1, s))); };
  /** One step on (pauses; after the last, back to the first). */
  const next = () => { touched.current = true; setPlaying(false); setStep((s) => (s >= count - 1 ? 0 : s + 1)); };
  /** The diagram came into view: play it through once, from the start. */
  const autoplay = () => {
    if (touched.current || reduced || count < 2) return;
    touched.current = true;
    setStep(0);
    setPlaying(true);
  };
  /** The reader took the diagram's own controls: stop here, and no autoplay after that. */
  const stop = () => { touched.current = true; setPlaying(false); };
  return { step, count, playing, toggle, reduced, setStep: seek, seek, next, autoplay, stop };
}

/** A narrated tour of a diagram's own state: step i puts the diagram in `steps[i]` (step 1 is the chapter's own
 * setting, what the diagram shows at rest and under reduced motion). Played once when scrolled into view like every
 * player; the reader's own change of the state (`take`) stops the tour and the state is theirs until they play, step
 * or scrub again. `value` is what the diagram draws; `index` the tour step it shows, or -1 for the reader's own. */
export function useTour<S>(steps: S[], ms = 2200) {
  const player = usePlayer(steps.length, ms, "first");
  const [own, setOwn] = useState<{ value: S } | null>(null);
  const index = own ? -1 : Math.min(player.step, steps.length - 1);
  const value = own ? own.value : steps[index];
  const take = (v: S) => { player.stop(); setOwn({ value: v }); };
  const back = () => setOwn(null);
  const tourPlayer: Player = {
    ...player,
    toggle: () => { back(); player.toggle(); },
    seek: (s: number) => { back(); player.seek(s); },
    setStep: (s: number) => { back(); player.seek(s); },
    next: () => { back(); player.next(); },
  };
  return { player: tourPlayer, value, index, own: own !== null, take };
}

/** The narration shown: the new line once the diagram's numbers for it have arrived (`text` not null), else the last
 * line, so the words never describe numbers the picture does not show yet. */
export function useHeld(text: string | null): string {
  const last = useRef("");
  if (text !== null) last.current = text;
  return last.current;
}

// Simulator answers by request, kept for the page's life: a tour asks for its steps' numbers once, up front, so
// stepping back and forth shows each step's own numbers at once.
const answers = new Map<string, unknown>();
const asked = new Map<string, Promise<unknown>>();

function ask(name: string, body: object): Promise<unknown> {
  const key = `${name} ${JSON.stringify(body)}`;
  let answer = asked.get(key);
  if (!answer) {
    answer = api<unknown>(`/simulators/${name}/`, { method: "POST", body }).then((data) => { answers.set(key, data); return data; });
    answer.catch(() => asked.delete(key));
    asked.set(key, answer);
  }
  return answer;
}

/** A simulator's answer to `body`, with `fresh` false while the picture still shows the previous body's answer;
 * `also` are the bodies the tour will ask next (asked now, in the background). */
export function useAnswer<Name extends keyof SimulatorResults>(name: Name, body: object | null, also: (object | null)[] = []) {
  type Data = SimulatorResults[Name];
  const key = body ? `${name} ${JSON.stringify(body)}` : "";
  const [, setArrived] = useState(0);
  const [failure, setFailure] = useState<{ key: string; error: ApiError } | null>(null);
  const shown = useRef<Data | null>(null);
  useEffect(() => {
    if (!key || answers.has(key)) return;
    let live = true;
    const timer = window.setTimeout(() => {
      ask(name, JSON.parse(key.slice(name.length + 1))).then(() => { if (live) setArrived((n) => n + 1); }, (err) => {
        if (!live) return;
        const error = err instanceof ApiError ? err : new ApiError(0, { error: "network", detail: String(err), fields: {} });
        setFailure({ key, error });
      });
    }, 150);
    return () => { live = false; window.clearTimeout(timer); };
  }, [name, key]);
  const later = JSON.stringify(also);
  useEffect(() => {
    for (const b of JSON.parse(later) as (object | null)[]) if (b) ask(name, b).catch(() => undefined);
  }, [name, later]);
  const exact = key ? (answers.get(key) as Data | undefined) : undefined;
  if (exact) shown.current = exact;
  return { data: shown.current, fresh: exact !== undefined, error: failure?.key === key ? failure.error : null };
}

export type Player = ReturnType<typeof usePlayer>;

export function PlayButton({ player, label = "Play" }: { player: Player; label?: string }) {
  return (
    <button type="button" onClick={player.toggle} aria-pressed={player.playing} data-testid="diagram-play">
      {player.playing ? "❚❚ Pause" : `▶ ${label}`}
    </button>
  );
}

/** Play/pause, one step on, a scrub slider over the steps and one line of narration for the step shown (read out by
 * screen readers as it changes). Starts the player once when the diagram scrolls into view. */
export function PlayerControls({ player, label, narration, scrubLabel = "Step", format, scrubTestId = "diagram-scrub" }: {
  player: Player; label?: string; narration?: ReactNode; scrubLabel?: string; format?: (step: number) => string; scrubTestId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const { autoplay } = player;
  const start = useRef(autoplay);
  start.current = autoplay;
  useEffect(() => {
    const el = box.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { start.current(); observer.disconnect(); }
    }, { rootMargin: "0px 0px -30% 0px", threshold: 1 });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const last = Math.max(player.count - 1, 0);
  const text = format ? format(player.step) : `${player.step + 1} of ${player.count}`;
  return (
    <div className="diagram-player" ref={box} data-testid="diagram-player" data-player-step={player.step} data-playing={player.playing}>
      <div className="diagram-controls">
        <PlayButton player={player} label={label} />
        <button type="button" onClick={player.next} data-testid="diagram-step" aria-label="Next step">Step ▸</button>
        <label>{scrubLabel}
          <input type="range" min={0} max={last} value={Math.min(player.step, last)} onChange={(e) => player.seek(Number(e.target.value))}
            aria-valuetext={text} data-testid={scrubTestId} />
          <output>{text}</output>
        </label>
      </div>
      {narration !== undefined && <p className="diagram-narration" aria-live="polite" data-testid="diagram-narration">{narration}</p>}
    </div>
  );
}

export function Slider({ label, value, min, max, step = 1, onChange, format }: {
  label: string; value: number; min: number; max: number; step?: number; onChange: (v: number) => void; format?: (v: number) => string;
}) {
  return (
    <label>
      {label}
      <input type="range" min={min} max={max} step={step} value={value} onChange={(e) => onChange(Number(e.target.value))}
        aria-valuetext={format ? format(value) : String(value)} data-testid="diagram-slider" />
      <output>{format ? format(value) : value}</output>
    </label>
  );
}

/** A slider over a list of values (powers of two, say): keyboard arrows move one value at a time. */
export function StepSlider({ label, values, value, onChange, format }: {
  label: string; values: number[]; value: number; onChange: (v: number) => void; format?: (v: number) => string;
}) {
  let index = values.findIndex((v) => v >= value);
  if (index < 0) index = values.length - 1;
  return <Slider label={label} value={index} min={0} max={values.length - 1} onChange={(i) => onChange(values[i])}
    format={(i) => (format ? format(values[i]) : String(values[i]))} />;
}

export const POW2 = (lo: number, hi: number) => { const out = []; for (let v = lo; v <= hi; v *= 2) out.push(v); return out; };

export function linear(d0: number, d1: number, r0: number, r1: number) {
  return (v: number) => r0 + ((v - d0) / ((d1 - d0) || 1)) * (r1 - r0);
}
export function logScale(d0: number, d1: number, r0: number, r1: number) {
  const l0 = Math.log10(Math.max(d0, 1e-30)), l1 = Math.log10(Math.max(d1, 1e-30));
  return (v: number) => r0 + ((Math.log10(Math.max(v, 1e-30)) - l0) / ((l1 - l0) || 1)) * (r1 - r0);
}

interface RegistryEntry { title: string; caption: string; lab: string; lab_path: string; params: Record<string, { default: string | number }> }
export const REGISTRY = registry as unknown as Record<string, RegistryEntry>;

/** The parameters an author set, over the registry's defaults. */
export function withDefaults(name: string, params: Params): Params {
  const out: Params = {};
  for (const [key, spec] of Object.entries(REGISTRY[name]?.params ?? {})) out[key] = params[key] ?? spec.default;
  return out;
}

export function Frame({ name, params, controls, player, legend, numbers, children, error }: {
  name: string; params: Params; controls?: ReactNode; player?: ReactNode; legend: ReactNode; numbers?: ReactNode; children: ReactNode;
  error?: string | null;
}) {
  const spec = REGISTRY[name];
  const reduced = useReducedMotion();
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return (
    <div className={`diagram-live${reduced ? " diagram-reduced" : ""}`} data-testid={`diagram-${name}`} role="group" aria-label={spec.title}>
      <h3>{spec.title}</h3>
      {controls && <div className="diagram-controls">{controls}</div>}
      {player}
      {error ? <p className="error" role="alert">{error}</p> : children}
      {legend}
      {numbers && <p className="diagram-numbers" aria-live="polite" data-testid="diagram-numbers">{numbers}</p>}
      <p className="diagram-caption">{spec.caption} <Link to={`${spec.lab_path}?${query}`} data-testid="diagram-lab-link">Open in the Lab →</Link></p>
    </div>
  );
}
