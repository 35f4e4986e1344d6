// Small SVG charts for the engine playground and sweeps (colours from the CSS variables).

export interface Series { label: string; color: string; values: number[] }

const W = 560;
const H = 200;
const PAD = 36;

function ticks(max: number): number[] {
  return [0, max / 2, max];
}

function fmt(v: number): string {
  if (v === 0) return "0";
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

export function Legend({ items }: { items: { label: string; color: string }[] }) {
  return (
    <div className="legend">
      {items.map((i) => (
        <span key={i.label}><span style={{ display: "inline-block", width: 10, height: 10, background: i.color, marginRight: 4 }} />{i.label}</span>
      ))}
    </div>
  );
}

export function Histogram({ title, edges, counts, color, unit }: { title: string; edges: number[]; counts: number[]; color: string; unit: string }) {
  const max = Math.max(1, ...counts);
  const bw = (W - 2 * PAD) / Math.max(1, counts.length);
  return (
    <figure>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title} width="100%">
        {counts.map((c, i) => (
          <rect key={i} x={PAD + i * bw} y={H - PAD - (c / max) * (H - 2 * PAD)} width={Math.max(1, bw - 1)} height={(c / max) * (H - 2 * PAD)} style={{ fill: color }}>
            <title>{`${fmt(edges[i])}–${fmt(edges[i + 1])} ${unit}: ${c}`}</title>
          </rect>
        ))}
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} stroke="currentColor" />
        <text x={PAD} y={H - PAD + 14} fontSize="11">0</text>
        <text x={W - PAD} y={H - PAD + 14} fontSize="11" textAnchor="end">{fmt(edges[edges.length - 1] ?? 0)} {unit}</text>
        <text x={4} y={PAD} fontSize="11">{max}</text>
      </svg>
    </figure>
  );
}

export function LineChart({ title, x, series, xUnit }: { title: string; x: number[]; series: Series[]; xUnit: string }) {
  const x0 = x[0] ?? 0;
  const x1 = x[x.length - 1] ?? 1;
  const max = Math.max(1e-9, ...series.flatMap((s) => s.values));
  const sx = (v: number) => PAD + ((v - x0) / Math.max(1e-9, x1 - x0)) * (W - 2 * PAD);
  const sy = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  return (
    <figure>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title} width="100%">
        {series.map((s) => (
          <polyline key={s.label} fill="none" strokeWidth={1.5} style={{ stroke: s.color }}
            points={s.values.map((v, i) => `${sx(x[i]).toFixed(1)},${sy(v).toFixed(1)}`).join(" ")} />
        ))}
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} stroke="currentColor" />
        {ticks(max).map((t) => <text key={t} x={2} y={sy(t) + 4} fontSize="11">{fmt(t)}</text>)}
        <text x={W - PAD} y={H - PAD + 14} fontSize="11" textAnchor="end">{fmt(x1)} {xUnit}</text>
      </svg>
      <Legend items={series} />
    </figure>
  );
}

export interface Dot { x: number; y: number; key: number; highlight: boolean; label: string }

export function Scatter({ title, dots, xLabel, yLabel }: { title: string; dots: Dot[]; xLabel: string; yLabel: string }) {
  const xmax = Math.max(1e-9, ...dots.map((d) => d.x));
  const ymax = Math.max(1e-9, ...dots.map((d) => d.y));
  const sx = (v: number) => PAD + (v / xmax) * (W - 2 * PAD);
  const sy = (v: number) => H - PAD - (v / ymax) * (H - 2 * PAD);
  const frontier = dots.filter((d) => d.highlight).sort((a, b) => a.x - b.x);
  return (
    <figure data-testid="pareto-plot">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title} width="100%">
        {frontier.length > 1 && (
          <polyline fill="none" strokeWidth={1.5} style={{ stroke: "var(--c-decode)" }} points={frontier.map((d) => `${sx(d.x)},${sy(d.y)}`).join(" ")} />
        )}
        {dots.map((d) => (
          <circle key={d.key} cx={sx(d.x)} cy={sy(d.y)} r={d.highlight ? 5 : 3} style={{ fill: d.highlight ? "var(--c-decode)" : "var(--c-waste)" }}>
            <title>{d.label}</title>
          </circle>
        ))}
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} stroke="currentColor" />
        <line x1={PAD} y1={PAD} x2={PAD} y2={H - PAD} stroke="currentColor" />
        <text x={W - PAD} y={H - 6} fontSize="11" textAnchor="end">{xLabel} (max {fmt(xmax)})</text>
        <text x={2} y={PAD - 8} fontSize="11">{yLabel} (max {fmt(ymax)})</text>
      </svg>
      <Legend items={[{ label: "Pareto frontier (meets SLO)", color: "var(--c-decode)" }, { label: "other points", color: "var(--c-waste)" }]} />
    </figure>
  );
}
