import { useEffect, useMemo, useState } from "react";
import { Link } from "react-router-dom";
import dagre from "@dagrejs/dagre";
import { api } from "../../lib/api";
import { useProgress } from "./progress";
import type { ChapterSummary, ConceptMapData, Status } from "./types";

const NODE_W = 170;
const NODE_H = 46;
const FILL: Record<string, string> = { understood: "var(--ok)", reading: "var(--c-decode)", none: "var(--bg-soft)" };

interface Laid {
  nodes: { slug: string; title: string; x: number; y: number }[];
  edges: { source: string; target: string; points: { x: number; y: number }[] }[];
  width: number;
  height: number;
}

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

function layout(data: ConceptMapData): Laid {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "TB", nodesep: 16, ranksep: 44, marginx: 10, marginy: 10 });
  graph.setDefaultEdgeLabel(() => ({}));
  const edges = transitiveReduction(data.edges);
  for (const node of data.nodes) graph.setNode(node.slug, { width: NODE_W, height: NODE_H });
  for (const edge of edges) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);
  const label = graph.graph();
  return {
    nodes: data.nodes.map((n) => ({ slug: n.slug, title: n.title, x: graph.node(n.slug).x, y: graph.node(n.slug).y })),
    edges: edges.map((e) => ({ ...e, points: graph.edge(e.source, e.target).points ?? [] })),
    width: label.width ?? 800,
    height: label.height ?? 600,
  };
}

function shorten(title: string): string[] {
  const words = title.split(" ");
  const lines = [""];
  for (const word of words) {
    if ((lines[lines.length - 1] + " " + word).trim().length > 24) {
      if (lines.length === 2) {
        lines[1] = lines[1].slice(0, 21) + "…";
        break;
      }
      lines.push(word);
    } else lines[lines.length - 1] = (lines[lines.length - 1] + " " + word).trim();
  }
  return lines;
}

export default function ConceptMap() {
  const [data, setData] = useState<ConceptMapData | null>(null);
  const [target, setTarget] = useState<string | null>(null);
  const [path, setPath] = useState<ChapterSummary[]>([]);
  const [error, setError] = useState("");
  const { progress, signedIn } = useProgress();

  useEffect(() => {
    api<ConceptMapData>("/concept-map/").then(setData).catch((e: Error) => setError(e.message));
  }, []);
  const laid = useMemo(() => (data ? layout(data) : null), [data]);

  const choose = async (slug: string) => {
    setTarget(slug);
    try {
      const body = await api<{ path: ChapterSummary[] }>(`/concept-map/path/?to=${encodeURIComponent(slug)}`);
      // Signed out, the server knows nothing of local progress: leave out what this browser marked understood.
      setPath(signedIn ? body.path : body.path.filter((c) => c.slug === slug || progress[c.slug] !== "understood"));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (error) return <p className="error" role="alert">{error}</p>;
  if (!data || !laid) return <p aria-busy="true">Loading…</p>;
  const onPath = new Set(path.map((c) => c.slug));
  const statusOf = (slug: string): Status => progress[slug] ?? null;
  return (
    <section aria-labelledby="map-title">
      <h1 id="map-title">Concept map</h1>
      <p>
        Arrows go from a prerequisite to the chapter that needs it. Choose a chapter to see the shortest reading path to
        it. <Link to="/learn">Back to the curriculum</Link>
      </p>
      <div className="legend" aria-label="Legend">
        <span><span className="swatch" style={{ background: FILL.understood }} />understood</span>
        <span><span className="swatch" style={{ background: FILL.reading }} />reading</span>
        <span><span className="swatch" style={{ background: FILL.none, border: "1px solid var(--border)" }} />not started</span>
        <span><span className="swatch" style={{ background: "var(--accent)" }} />on the reading path</span>
      </div>
      <div className="map-layout">
        <div className="map-scroll">
          <svg width={laid.width} height={laid.height} role="group" aria-label="Chapters and their prerequisites">
            <defs>
              <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" fill="var(--fg-soft)" />
              </marker>
            </defs>
            {laid.edges.map((edge) => {
              const active = onPath.has(edge.source) && onPath.has(edge.target);
              return (
                <polyline
                  key={`${edge.source}-${edge.target}`}
                  points={edge.points.map((p) => `${p.x},${p.y}`).join(" ")}
                  fill="none"
                  stroke={active ? "var(--accent)" : "var(--border)"}
                  strokeWidth={active ? 2.5 : 1.2}
                  markerEnd="url(#arrow)"
                />
              );
            })}
            {laid.nodes.map((node) => {
              const status = statusOf(node.slug) ?? "none";
              const highlighted = onPath.has(node.slug);
              return (
                <g
                  key={node.slug}
                  transform={`translate(${node.x - NODE_W / 2},${node.y - NODE_H / 2})`}
                  role="button"
                  tabIndex={0}
                  aria-label={`${node.title} (${status === "none" ? "not started" : status}): show reading path`}
                  aria-pressed={target === node.slug}
                  className="map-node"
                  data-testid={`map-node-${node.slug}`}
                  onClick={() => choose(node.slug)}
                  onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), choose(node.slug))}
                >
                  <rect
                    width={NODE_W}
                    height={NODE_H}
                    rx={6}
                    fill={FILL[status]}
                    stroke={highlighted ? "var(--accent)" : "var(--border)"}
                    strokeWidth={highlighted ? 3 : 1}
                  />
                  {shorten(node.title).map((line, i) => (
                    <text key={i} x={8} y={18 + i * 16} fontSize="12" fill={status === "none" ? "var(--fg)" : "#fff"}>
                      {line}
                    </text>
                  ))}
                </g>
              );
            })}
          </svg>
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
            </>
          ) : (
            <p className="muted">Select a chapter to list what to read first.</p>
          )}
        </aside>
      </div>
    </section>
  );
}
