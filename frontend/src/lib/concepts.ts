// The one colour and pattern language of the site: every diagram, Lab chart and legend colours a concept from this
// map, so prefill is the same blue in a chapter's diagram and on its Lab page, and compute is never memory's colour.
// The colours reach CSS as custom properties (--c-<concept>), set once on the document by installConceptColours();
// code takes them as conceptColor("kv") (or C.kv in the Lab's charts). tests/architecture/test_concept_colours.py
// fails when a diagram or a Lab page colours anything with a literal instead.

export type Concept =
  | "prefill" | "decode" | "kv" | "weights" | "tokens" | "compute" | "memory" | "communication" | "waste" | "activations" | "overhead";

/** How a concept is drawn where colour alone may not be seen: a fill pattern over its colour. */
export type Pattern = "solid" | "vert" | "diag" | "grid" | "dots" | "rdiag" | "horiz" | "cross" | "checker" | "rings";

export interface ConceptStyle { label: string; color: string; pattern: Pattern }

export const CONCEPTS: Record<Concept, ConceptStyle> = {
  prefill: { label: "prefill", color: "#2f6fdf", pattern: "solid" },
  decode: { label: "decode", color: "#e07a1f", pattern: "vert" },
  kv: { label: "KV cache", color: "#8e44ad", pattern: "diag" },
  weights: { label: "weights", color: "#5b6b7a", pattern: "grid" },
  tokens: { label: "tokens", color: "#2ca02c", pattern: "dots" },
  compute: { label: "compute", color: "#d62728", pattern: "rdiag" },
  memory: { label: "memory", color: "#0e8a8a", pattern: "horiz" },
  communication: { label: "communication", color: "#bcbd22", pattern: "cross" },
  waste: { label: "idle / waste", color: "#a3a3a3", pattern: "checker" },
  activations: { label: "activations", color: "#d6619e", pattern: "rings" },
  overhead: { label: "runtime overhead", color: "#8c564b", pattern: "solid" },
};

export const CONCEPT_NAMES = Object.keys(CONCEPTS) as Concept[];

/** A concept's colour as CSS (a custom property, so a theme could restyle it in one place). */
export const conceptColor = (concept: Concept) => `var(--c-${concept})`;

/** The concept a colour written as conceptColor(...) stands for (legends mark their swatches with it). */
export function conceptOf(color: string): Concept | undefined {
  const match = /^var\(--c-([a-z]+)\)$/.exec(color);
  return match && match[1] in CONCEPTS ? (match[1] as Concept) : undefined;
}

/** The custom properties, as a CSS declaration block. */
export function conceptCssVariables(): Record<string, string> {
  return Object.fromEntries(CONCEPT_NAMES.map((c) => [`--c-${c}`, CONCEPTS[c].color]));
}

/** Sets --c-<concept> on the document root (once, before the app renders). */
export function installConceptColours(root: HTMLElement = document.documentElement): void {
  for (const [name, value] of Object.entries(conceptCssVariables())) root.style.setProperty(name, value);
}

/** The ink of a pattern over its colour. */
export const PATTERN_INK = "rgba(255,255,255,.6)";
const LINE = PATTERN_INK;

/** A pattern as a CSS background image, for HTML swatches (the SVG diagrams draw the same pattern in <pattern>). */
export function patternCss(pattern: Pattern): string | undefined {
  switch (pattern) {
    case "solid": return undefined;
    case "vert": return `repeating-linear-gradient(90deg, transparent 0 2px, ${LINE} 2px 3.5px)`;
    case "horiz": return `repeating-linear-gradient(0deg, transparent 0 2px, ${LINE} 2px 3.5px)`;
    case "diag": return `repeating-linear-gradient(45deg, transparent 0 3px, ${LINE} 3px 4.5px)`;
    case "rdiag": return `repeating-linear-gradient(-45deg, transparent 0 3px, ${LINE} 3px 4.5px)`;
    case "grid": return `repeating-linear-gradient(0deg, transparent 0 3px, ${LINE} 3px 4px), repeating-linear-gradient(90deg, transparent 0 3px, ${LINE} 3px 4px)`;
    case "cross": return `repeating-linear-gradient(45deg, transparent 0 3px, ${LINE} 3px 4px), repeating-linear-gradient(-45deg, transparent 0 3px, ${LINE} 3px 4px)`;
    case "dots": return `radial-gradient(${LINE} 1px, transparent 1.3px) 0 0 / 5px 5px`;
    case "rings": return `radial-gradient(transparent 1px, ${LINE} 1.3px, transparent 2px) 0 0 / 6px 6px`;
    case "checker": return `repeating-conic-gradient(${LINE} 0 25%, transparent 0 50%) 0 0 / 6px 6px`;
  }
}

/** The style of an HTML swatch for a concept: its colour and its pattern. */
export function swatchStyle(concept: Concept): { background: string } {
  const pattern = patternCss(CONCEPTS[concept].pattern);
  return { background: pattern ? `${pattern}, ${conceptColor(concept)}` : conceptColor(concept) };
}
