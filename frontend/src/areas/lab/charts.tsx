// Small SVG charts in the one visual language: colours come from the CSS variables, every chart has a legend.
import type { ReactNode } from "react";

export const C = {
  prefill: "var(--c-prefill)", decode: "var(--c-decode)", kv: "var(--c-kv)", weights: "var(--c-weights)",
  tokens: "var(--c-tokens)", compute: "var(--c-compute)", memory: "var(--c-memory)",
  communication: "var(--c-communication)", waste: "var(--c-waste)",
};

export function Legend({ items }: { items: { label: string; color: string }[] }) {
  return (
    <ul className="lab-legend" aria-label="Legend">
      {items.map((item) => (
        <li key={item.label}><span className="lab-swatch" style={{ background: item.color }} />{item.label}</li>
      ))}
    </ul>
  );
}

export interface Segment { key: string; label: string; value: number; color: string; text: string }

/** One horizontal bar split into segments (memory breakdown). */
export function StackedBar({ segments, total, title }: { segments: Segment[]; total: number; title: string }) {
  const sum = Math.max(total, segments.reduce((a, s) => a + Math.max(s.value, 0), 0), 1);
  let x = 0;
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <svg viewBox="0 0 600 40" role="img" aria-label={title} className="lab-bar">
        {segments.map((s) => {
          const w = (Math.max(s.value, 0) / sum) * 600;
          const rect = <rect key={s.key} x={x} y={4} width={w} height={32} style={{ fill: s.color }}><title>{s.text}</title></rect>;
          x += w;
          return rect;
        })}
      </svg>
      <ul className="lab-legend">
        {segments.map((s) => (
          <li key={s.key} data-testid={`segment-${s.key}`}><span className="lab-swatch" style={{ background: s.color }} />{s.text}</li>
        ))}
      </ul>
    </figure>
  );
}

const W = 600, H = 300, PAD = { l: 64, r: 16, t: 16, b: 40 };
const log10 = (v: number) => Math.log10(Math.max(v, 1e-300));

function ticks(lo: number, hi: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let e = Math.ceil(log10(lo)); e <= Math.floor(log10(hi)); e++) out.push(10 ** e);
    return out.length > 7 ? out.filter((_, i) => i % 2 === 0) : out;
  }
  const step = (hi - lo) / 4;
  return [0, 1, 2, 3, 4].map((i) => lo + i * step);
}

function scale(lo: number, hi: number, a: number, b: number, log: boolean) {
  const [l, h] = log ? [log10(lo), log10(hi)] : [lo, hi];
  return (v: number) => a + ((log ? log10(v) : v) - l) / ((h - l) || 1) * (b - a);
}

export interface Series { label: string; color: string; points: [number, number][]; dashed?: boolean }

interface PlotProps {
  title: string; series: Series[]; xLabel: string; yLabel: string; logX?: boolean; logY?: boolean;
  fmtX?: (v: number) => string; fmtY?: (v: number) => string; markers?: { x: number; y: number; label: string; color: string }[];
  children?: ReactNode; xDomain?: [number, number]; yDomain?: [number, number];
}

/** A line chart (log or linear axes) with optional labelled markers. */
export function Plot({ title, series, xLabel, yLabel, logX, logY, fmtX = String, fmtY = String, markers = [], xDomain, yDomain }: PlotProps) {
  const xs = series.flatMap((s) => s.points.map((p) => p[0])).concat(markers.map((m) => m.x)).filter((v) => !logX || v > 0);
  const ys = series.flatMap((s) => s.points.map((p) => p[1])).concat(markers.map((m) => m.y)).filter((v) => !logY || v > 0);
  if (!xs.length || !ys.length) return <figure className="lab-chart"><figcaption>{title}</figcaption><p>No data.</p></figure>;
  const [x0, x1] = xDomain ?? [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = yDomain ?? [logY ? Math.min(...ys) : Math.min(0, ...ys), Math.max(...ys) * (logY ? 1 : 1.05)];
  const sx = scale(x0, x1 === x0 ? x0 * 10 : x1, PAD.l, W - PAD.r, !!logX);
  const sy = scale(y0, y1 === y0 ? y0 * 10 : y1, H - PAD.b, PAD.t, !!logY);
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} className="lab-axis" />
        <line x1={PAD.l} y1={PAD.t} x2={PAD.l} y2={H - PAD.b} className="lab-axis" />
        {ticks(x0, x1, !!logX).map((t) => (
          <text key={`x${t}`} x={sx(t)} y={H - PAD.b + 16} className="lab-tick" textAnchor="middle">{fmtX(t)}</text>
        ))}
        {ticks(y0, y1, !!logY).map((t) => (
          <text key={`y${t}`} x={PAD.l - 6} y={sy(t) + 4} className="lab-tick" textAnchor="end">{fmtY(t)}</text>
        ))}
        <text x={(PAD.l + W - PAD.r) / 2} y={H - 6} className="lab-tick" textAnchor="middle">{xLabel}</text>
        <text x={14} y={(PAD.t + H - PAD.b) / 2} className="lab-tick" textAnchor="middle" transform={`rotate(-90 14 ${(PAD.t + H - PAD.b) / 2})`}>{yLabel}</text>
        {series.map((s) => (
          <polyline key={s.label} fill="none" strokeWidth={2.5} strokeDasharray={s.dashed ? "6 4" : undefined}
            style={{ stroke: s.color }}
            points={s.points.filter((p) => (!logX || p[0] > 0) && (!logY || p[1] > 0)).map((p) => `${sx(p[0])},${sy(p[1])}`).join(" ")} />
        ))}
        {markers.map((m) => (
          <g key={m.label}>
            <circle cx={sx(m.x)} cy={sy(m.y)} r={6} style={{ fill: m.color }} stroke="var(--bg)" strokeWidth={2}><title>{m.label}</title></circle>
            <text x={sx(m.x) + 9} y={sy(m.y) - 8} className="lab-tick">{m.label}</text>
          </g>
        ))}
      </svg>
      <Legend items={[...series.map((s) => ({ label: s.label, color: s.color })), ...markers.map((m) => ({ label: m.label, color: m.color }))]} />
    </figure>
  );
}

/** Roofline: attainable FLOP/s = min(peak, bandwidth × intensity), with the ridge point and operating points. */
export function Roofline({ peak, bandwidth, points }: { peak: number; bandwidth: number; points: { label: string; ai: number; flops: number; color: string }[] }) {
  const ridge = peak / bandwidth;
  const lo = Math.min(ridge / 100, ...points.map((p) => p.ai / 3));
  const hi = Math.max(ridge * 100, ...points.map((p) => p.ai * 3));
  return (
    <Plot title="Roofline (log-log)" logX logY xLabel="arithmetic intensity (FLOP/byte)" yLabel="FLOP/s"
      fmtX={(v) => v.toExponential(0)} fmtY={(v) => v.toExponential(0)}
      yDomain={[Math.min(bandwidth * lo, ...points.map((p) => p.flops)) * 0.8, peak * 1.6]}
      series={[
        { label: "memory roof (bandwidth × intensity)", color: C.memory, points: [[lo, bandwidth * lo], [ridge, peak]] },
        { label: "compute roof (peak)", color: C.compute, points: [[ridge, peak], [hi, peak]] },
      ]}
      markers={[{ label: `ridge ${Math.round(ridge)} FLOP/B`, x: ridge, y: peak, color: "var(--fg)" }, ...points.map((p) => ({ label: p.label, x: p.ai, y: p.flops, color: p.color }))]}
    />
  );
}

/** Vertical bars (per-expert load) with an optional horizontal capacity line. */
export function Bars({ values, color, title, line, lineLabel }: { values: number[]; color: string; title: string; line?: number; lineLabel?: string }) {
  const max = Math.max(...values, line ?? 0, 1e-9);
  const bw = (W - PAD.l - PAD.r) / Math.max(values.length, 1);
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.b - PAD.t);
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} className="lab-axis" />
        {values.map((v, i) => (
          <rect key={i} x={PAD.l + i * bw} y={y(v)} width={Math.max(bw - 1, 0.5)} height={H - PAD.b - y(v)}
            style={{ fill: line !== undefined && v > line ? C.compute : color }}><title>{`expert ${i}: ${v.toFixed(2)} tokens`}</title></rect>
        ))}
        {line !== undefined && <line x1={PAD.l} x2={W - PAD.r} y1={y(line)} y2={y(line)} strokeDasharray="6 4" style={{ stroke: C.waste }} strokeWidth={2} />}
        <text x={PAD.l - 6} y={PAD.t + 10} className="lab-tick" textAnchor="end">{max.toFixed(1)}</text>
        <text x={(PAD.l + W) / 2} y={H - 8} className="lab-tick" textAnchor="middle">experts (most popular first)</text>
      </svg>
      <Legend items={[{ label: "expected tokens per expert", color }, { label: "over capacity (dropped)", color: C.compute }, ...(lineLabel ? [{ label: lineLabel, color: C.waste }] : [])]} />
    </figure>
  );
}
