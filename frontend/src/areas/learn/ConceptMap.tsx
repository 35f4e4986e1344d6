// The concept map: every chapter grouped in its part, arrows from a prerequisite to the chapter that needs it, with
// zoom, pan and fit-to-view (React Flow), full titles, and the reading path to a chosen chapter highlighted. A picker
// lists every chapter: the chosen one is centred at a zoom where its title reads (at least 12 px on screen), and the
// chapters it needs first and those that build on it are marked. Zoomed out past where a title would be under 10 px,
// chapter titles give way to coloured boxes and show on hover or focus; part titles grow to stay 11 px on screen.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link } from "react-router-dom";
import {
  Background, Controls, Handle, MarkerType, Position, ReactFlow, useStore,
  type Edge, type Node, type NodeProps, type ReactFlowInstance,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { api } from "../../lib/api";
import { useProgress } from "./progress";
import type { ChapterSummary, ConceptMapData, PartSummary, Status } from "./types";

const CHAPTER_W = 210;
const CHAPTER_H = 72;
const GAP_Y = 12;
const PAD = 12;
const HEADER = 44;
const PART_GAP = 48;
const COLUMNS = 6;
const CHAPTER_FONT = 12;  // px at zoom 1 (learn.css: .map-chapter button)
const MIN_LABEL_PX = 10;  // below this on screen a chapter's title is hidden until hovered or focused
const PART_FONT = 13;
const MIN_PART_PX = 11;
const PART_FONT_MAX = 28;  // one line of it fills the part's header (HEADER)
const PICK_ZOOM = 1.1;    // a picked chapter's title: 13 px on screen

type Relation = "chosen" | "prerequisite" | "dependent" | null;
type ChapterData = {
  slug: string; title: string; status: Status; onPath: boolean; chosen: boolean; relation: Relation; choose: (slug: string) => void;
};
type PartData = { title: string; order: number; count: number };
type ChapterFlowNode = Node<ChapterData, "chapter">;
type PartFlowNode = Node<PartData, "part">;

/** Drops edges implied by a longer path (a→c when a→b→c exists): the map shows the same order with far fewer lines. */
function transitiveReduction(edges: ConceptMapData["edges"]): ConceptMapData["edges"] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target]);
  const reachableWithoutDirectEdge = (from: string, to: string): boolean => {
    const stack = (next.get(from) ?? []).filter((n) => n !== to);
    const seen = new Set(stack);
    while (stack.length) {
      const node = stack.pop()!;
      if (node === to) return true;
      for (const child of next.get(node) ?? []) if (!seen.has(child)) { seen.add(child); stack.push(child); }
    }
    return false;
  };
  return edges.filter((e) => !reachableWithoutDirectEdge(e.source, e.target));
}

const STATUS_LABEL: Record<string, string> = { understood: "understood", reading: "reading", none: "not started" };

const RELATION_LABEL: Record<string, string> = { prerequisite: "needs first", dependent: "builds on it" };

const ChapterNode = memo(function ChapterNode({ data }: NodeProps<ChapterFlowNode>) {
  const status = data.status ?? "none";
  const [peek, setPeek] = useState(false);
  // Only whether the title is too small to read, so a node re-renders when that flips, not on every zoom step.
  const small = useStore((s) => s.transform[2] * CHAPTER_FONT < MIN_LABEL_PX);
  const zoom = useStore((s) => (peek && small ? s.transform[2] : 1));
  const badge = data.relation && data.relation !== "chosen" ? RELATION_LABEL[data.relation] : null;
  return (
    <div
      className={`map-chapter status-${status}${data.onPath ? " on-path" : ""}${data.relation ? ` ${data.relation}` : ""}${small ? " label-small" : ""}`}
      data-testid={`map-node-${data.slug}`} data-relation={data.relation ?? undefined}
      onMouseEnter={() => setPeek(true)} onMouseLeave={() => setPeek(false)}
      onFocus={() => setPeek(true)} onBlur={() => setPeek(false)}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <button
        type="button"
        className="nodrag"
        aria-pressed={data.chosen}
        aria-label={`${data.title} (${STATUS_LABEL[status]}${badge ? `, ${badge}` : ""}): show reading path`}
        onClick={() => data.choose(data.slug)}
      >
        <span className="map-title">{data.title}</span>
        {badge && <span className="map-badge" aria-hidden="true">{badge}</span>}
      </button>
      {peek && small && (
        <span className="map-peek" role="tooltip" style={{ fontSize: `${14 / zoom}px`, padding: `${4 / zoom}px ${8 / zoom}px` }}>
          {data.title}
        </span>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const PartNode = memo(function PartNode({ data }: NodeProps<PartFlowNode>) {
  // Zoomed out, a part's title grows (on one line, cut with an ellipsis) so that it stays MIN_PART_PX on screen, up to
  // what its header holds (rounded: re-renders in steps).
  const size = useStore((s) => Math.min(PART_FONT_MAX, Math.max(PART_FONT, Math.ceil(MIN_PART_PX / s.transform[2]))));
  return (
    <div className="map-part" data-testid="map-part">
      <h3 style={{ fontSize: `${size}px` }} className={size > PART_FONT ? "grown" : ""} title={`${data.order}. ${data.title}`}>
        {data.order}. {data.title}
      </h3>
    </div>
  );
});

const NODE_TYPES = { chapter: ChapterNode, part: PartNode };

/** Parts as boxes in reading order, six to a row; each part's chapters stacked inside it in order. */
function layout(data: ConceptMapData, parts: PartSummary[]): { parts: PartFlowNode[]; chapters: Map<string, { parent: string; x: number; y: number }> } {
  const known = parts.filter((part) => data.nodes.some((node) => node.part === part.slug)).sort((a, b) => a.order - b.order);
  const byPart = new Map(known.map((part) => [part.slug, data.nodes.filter((n) => n.part === part.slug).sort((a, b) => a.order - b.order)]));
  const partNodes: PartFlowNode[] = [];
  const chapters = new Map<string, { parent: string; x: number; y: number }>();
  let y = 0;
  for (let row = 0; row * COLUMNS < known.length; row++) {
    const inRow = known.slice(row * COLUMNS, row * COLUMNS + COLUMNS);
    const heights = inRow.map((part) => HEADER + (byPart.get(part.slug)!.length) * (CHAPTER_H + GAP_Y) + PAD - GAP_Y);
    const rowHeight = Math.max(...heights);
    inRow.forEach((part, column) => {
      const id = `part:${part.slug}`;
      const members = byPart.get(part.slug)!;
      partNodes.push({
        id, type: "part", position: { x: column * (CHAPTER_W + 2 * PAD + PART_GAP), y },
        data: { title: part.title, order: part.order, count: members.length },
        style: { width: CHAPTER_W + 2 * PAD, height: rowHeight }, selectable: false, draggable: false,
      });
      members.forEach((chapter, index) => chapters.set(chapter.slug, { parent: id, x: PAD, y: HEADER + index * (CHAPTER_H + GAP_Y) }));
    });
    y += rowHeight + PART_GAP;
  }
  return { parts: partNodes, chapters };
}

export default function ConceptMap() {
  const [data, setData] = useState<ConceptMapData | null>(null);
  const [parts, setParts] = useState<PartSummary[] | null>(null);
  const [target, setTarget] = useState<string | null>(null);
  const [path, setPath] = useState<ChapterSummary[]>([]);
  const [error, setError] = useState("");
  const { progress, signedIn } = useProgress();
  const flow = useRef<ReactFlowInstance<Node, Edge> | null>(null);

  useEffect(() => {
    Promise.all([api<ConceptMapData>("/concept-map/"), api<PartSummary[]>("/parts/")])
      .then(([map, partList]) => { setData(map); setParts(partList); })
      .catch((e: Error) => setError(e.message));
  }, []);
  const laid = useMemo(() => (data && parts ? layout(data, parts) : null), [data, parts]);
  const reduced = useMemo(() => (data ? transitiveReduction(data.edges) : []), [data]);

  const centre = useCallback((slug: string) => {
    const place = laid?.chapters.get(slug);
    const part = place && laid?.parts.find((p) => p.id === place.parent);
    if (!place || !part || !flow.current) return;
    const still = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    const zoom = Math.max(flow.current.getZoom(), PICK_ZOOM);
    void flow.current.setCenter(part.position.x + place.x + CHAPTER_W / 2, part.position.y + place.y + CHAPTER_H / 2,
      { zoom, duration: still ? 0 : 400 });
  }, [laid]);

  const choose = useCallback(async (slug: string) => {
    setTarget(slug);
    window.requestAnimationFrame(() => centre(slug));
    try {
      const body = await api<{ path: ChapterSummary[] }>(`/concept-map/path/?to=${encodeURIComponent(slug)}`);
      // Signed out, the server knows nothing of local progress: leave out what this browser marked understood.
      const shown = signedIn ? body.path : body.path.filter((c) => c.slug === slug || progress[c.slug] !== "understood");
      setPath(shown);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [signedIn, progress, centre]);

  const onPath = useMemo(() => new Set(path.map((c) => c.slug)), [path]);
  // The chosen chapter's direct neighbours (every edge, not only the reduced ones drawn).
  const neighbours = useMemo(() => {
    const needs = new Set<string>(), leadsTo = new Set<string>();
    for (const edge of data?.edges ?? []) {
      if (edge.target === target) needs.add(edge.source);
      if (edge.source === target) leadsTo.add(edge.target);
    }
    return { needs, leadsTo };
  }, [data, target]);
  const relation = useCallback((slug: string): Relation => (
    slug === target ? "chosen" : neighbours.needs.has(slug) ? "prerequisite" : neighbours.leadsTo.has(slug) ? "dependent" : null
  ), [target, neighbours]);
  const byPart = useMemo(() => {
    if (!data || !parts) return [];
    return [...parts].sort((a, b) => a.order - b.order).map((part) => ({
      part, chapters: data.nodes.filter((n) => n.part === part.slug).sort((a, b) => a.order - b.order),
    })).filter((group) => group.chapters.length > 0);
  }, [data, parts]);
  const titleOf = useMemo(() => new Map((data?.nodes ?? []).map((n) => [n.slug, n.title])), [data]);
  const nodes = useMemo<Node[]>(() => {
    if (!data || !laid) return [];
    const chapterNodes: ChapterFlowNode[] = data.nodes.filter((n) => laid.chapters.has(n.slug)).map((n) => {
      const place = laid.chapters.get(n.slug)!;
      return {
        id: n.slug, type: "chapter", parentId: place.parent, position: { x: place.x, y: place.y },
        style: { width: CHAPTER_W, height: CHAPTER_H }, draggable: false, selectable: false,
        data: {
          slug: n.slug, title: n.title, status: progress[n.slug] ?? null, onPath: onPath.has(n.slug), chosen: target === n.slug,
          relation: relation(n.slug), choose,
        },
      };
    });
    return [...laid.parts, ...chapterNodes];
  }, [data, laid, progress, onPath, target, choose, relation]);
  const edges = useMemo<Edge[]>(() => {
    // The reduced edges, plus the chosen chapter's own edges that the reduction dropped.
    const drawn = new Set(reduced.map((e) => `${e.source}->${e.target}`));
    const own = (data?.edges ?? []).filter((e) => (e.source === target || e.target === target) && !drawn.has(`${e.source}->${e.target}`));
    return [...reduced, ...own].map((edge) => {
      const active = onPath.has(edge.source) && onPath.has(edge.target);
      const near = target !== null && (edge.source === target || edge.target === target);
      return {
        id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target, animated: active, zIndex: near ? 3 : active ? 2 : 1,
        className: `map-edge${active ? " on-path" : ""}${near ? " neighbour" : ""}`,
        markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14 },
      };
    });
  }, [reduced, data, onPath, target]);

  if (error) return <p className="error" role="alert">{error}</p>;
  if (!data || !laid) return <p aria-busy="true">Loading…</p>;
  return (
    <section aria-labelledby="map-title" className="concept-map">
      <h1 id="map-title">Concept map</h1>
      <p>
        Chapters sit in their parts; arrows go from a prerequisite to the chapter that needs it. Drag to pan, scroll or
        pinch to zoom. Choose a chapter to see the shortest reading path to it. <Link to="/learn">Back to the curriculum</Link>
      </p>
      <div className="legend" aria-label="Legend">
        <span><span className="swatch status-understood" />understood</span>
        <span><span className="swatch status-reading" />reading</span>
        <span><span className="swatch status-none" />not started</span>
        <span><span className="swatch on-path" />on the reading path</span>
        <span><span className="swatch prerequisite" />needs first</span>
        <span><span className="swatch dependent" />builds on it</span>
      </div>
      <div className="map-picker">
        <label htmlFor="map-chapter-picker">Go to a chapter</label>
        <select id="map-chapter-picker" value={target ?? ""} onChange={(e) => { if (e.target.value) void choose(e.target.value); }}>
          <option value="">Choose a chapter…</option>
          {byPart.map(({ part, chapters }) => (
            <optgroup key={part.slug} label={`${part.order}. ${part.title}`}>
              {chapters.map((c) => <option key={c.slug} value={c.slug}>{c.title}</option>)}
            </optgroup>
          ))}
        </select>
      </div>
      <div className="map-layout">
        <div className="map-flow" data-testid="map-flow" role="group" aria-label="Chapters and their prerequisites">
          <ReactFlow
            nodes={nodes} edges={edges} nodeTypes={NODE_TYPES}
            onInit={(instance) => { flow.current = instance; }}
            fitView fitViewOptions={{ padding: 0.05 }} minZoom={0.15} maxZoom={2}
            nodesDraggable={false} nodesConnectable={false} elementsSelectable={false} proOptions={{ hideAttribution: true }}
          >
            <Background gap={24} />
            <Controls showInteractive={false} position="top-left" />
          </ReactFlow>
        </div>
        <aside aria-live="polite" className="map-path">
          {target ? (
            <>
              <h2>Reading path</h2>
              <ol data-testid="reading-path">
                {path.map((c) => (
                  <li key={c.slug}>
                    <Link to={`/learn/${c.slug}`}>{c.title}</Link>
                  </li>
                ))}
              </ol>
              {neighbours.needs.size > 0 && (
                <>
                  <h3>Needs first</h3>
                  <ul data-testid="map-prerequisites">
                    {[...neighbours.needs].map((slug) => (
                      <li key={slug}><button type="button" className="link-button" onClick={() => void choose(slug)}>{titleOf.get(slug)}</button></li>
                    ))}
                  </ul>
                </>
              )}
              {neighbours.leadsTo.size > 0 && (
                <>
                  <h3>Builds on it</h3>
                  <ul data-testid="map-dependents">
                    {[...neighbours.leadsTo].map((slug) => (
                      <li key={slug}><button type="button" className="link-button" onClick={() => void choose(slug)}>{titleOf.get(slug)}</button></li>
                    ))}
                  </ul>
                </>
              )}
              <button type="button" onClick={() => void flow.current?.fitView({ padding: 0.05, duration: 300 })}>Show the whole map</button>
            </>
          ) : (
            <p className="muted">Select a chapter to list what to read first.</p>
          )}
        </aside>
      </div>
    </section>
  );
}
