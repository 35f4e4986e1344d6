// Every Lab chart is drawn with Recharts: axes with ticks, a tooltip on hover, and a legend, in the one visual
// language (colours from the CSS variables). Each chart's <svg> carries role="img" and its title as aria-label.
import {
  Bar, BarChart, CartesianGrid, Cell, ComposedChart, LabelList, Line, ReferenceDot, ReferenceLine, ResponsiveContainer,
  Scatter, ScatterChart, Tooltip, XAxis, YAxis,
} from "recharts";
import { CONCEPT_NAMES, conceptColor, conceptOf, swatchStyle, type Concept } from "../../lib/concepts";

/** Each concept's colour, from the one concept map (lib/concepts.ts): C.kv, C.compute, ... */
export const C = Object.fromEntries(CONCEPT_NAMES.map((c) => [c, conceptColor(c)])) as Record<Concept, string>;

/** A swatch: a concept's colour and pattern when the colour is a concept's, else the plain colour (a neutral line). */
function Swatch({ color }: { color: string }) {
  const concept = conceptOf(color);
  return <span className="lab-swatch" data-concept={concept} style={concept ? swatchStyle(concept) : { background: color }} />;
}

const TICK = { fill: "var(--fg-soft)", fontSize: 11 };
const AXIS = { stroke: "var(--fg-soft)" };
const TOOLTIP = {
  contentStyle: { background: "var(--bg)", border: "1px solid var(--border)", color: "var(--fg)", fontSize: 12 },
  labelStyle: { color: "var(--fg)" },
};

export function Legend({ items }: { items: { label: string; color: string }[] }) {
  return (
    <ul className="lab-legend" aria-label="Legend">
      {items.map((item) => (
        <li key={item.label} data-concept={conceptOf(item.color)}><Swatch color={item.color} />{item.label}</li>
      ))}
    </ul>
  );
}

/** A compact number for axis ticks: 1.2k, 3.4M, 0.05. */
export function tickNum(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  for (const [scale, suffix] of [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]] as const) {
    if (a >= scale) return `${Number((v / scale).toPrecision(3))}${suffix}`;
  }
  return a >= 1 ? String(Number(v.toPrecision(3))) : String(Number(v.toPrecision(2)));
}

export interface Segment { key: string; label: string; value: number; color: string; text: string }

/** One horizontal bar split into segments (memory breakdown), with an optional capacity line. */
export function StackedBar({ segments, total, title, capacity }: { segments: Segment[]; total: number; title: string; capacity?: { value: number; label: string } }) {
  const row: Record<string, number | string> = { name: "per GPU" };
  for (const s of segments) row[s.key] = Math.max(s.value, 0);
  const sum = Math.max(total, segments.reduce((a, s) => a + Math.max(s.value, 0), 0), capacity?.value ?? 0, 1);
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={capacity ? 78 : 64}>
        <BarChart data={[row]} layout="vertical" role="img" aria-label={title} margin={{ top: capacity ? 16 : 4, right: 16, bottom: 0, left: 0 }}>
          <XAxis type="number" domain={[0, sum]} tick={TICK} tickFormatter={(v: number) => `${tickNum(v)}B`} {...AXIS} />
          <YAxis type="category" dataKey="name" hide />
          <Tooltip {...TOOLTIP} cursor={false} formatter={(_v, _n, item) => [segments.find((s) => s.key === item.dataKey)?.text ?? "", ""]} />
          {segments.map((s) => <Bar key={s.key} dataKey={s.key} stackId="m" fill={s.color} name={s.label} isAnimationActive={false} />)}
          {capacity && <ReferenceLine x={capacity.value} stroke="var(--fg)" strokeDasharray="4 3" strokeWidth={2}
            label={{ value: capacity.label, position: "top", fill: "var(--fg)", fontSize: 11 }} />}
        </BarChart>
      </ResponsiveContainer>
      <ul className="lab-legend">
        {segments.map((s) => (
          <li key={s.key} data-testid={`segment-${s.key}`} data-concept={conceptOf(s.color)}><Swatch color={s.color} />{s.text}</li>
        ))}
        {capacity && <li data-testid="segment-capacity"><span className="lab-swatch lab-swatch-line" />{capacity.label}</li>}
      </ul>
    </figure>
  );
}

/** Horizontal bars with their names on the axis and each bar's value written beside it (nothing clipped). */
export function HBars({ title, bars, fmt }: { title: string; bars: { label: string; value: number; color: string }[]; fmt: (v: number) => string }) {
  const width = Math.max(...bars.map((b) => b.label.length)) * 7 + 12;
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={bars.length * 34 + 30}>
        <BarChart data={bars} layout="vertical" role="img" aria-label={title} margin={{ top: 4, right: 72, bottom: 4, left: 4 }}>
          <CartesianGrid horizontal={false} stroke="var(--border)" />
          <XAxis type="number" tick={TICK} tickFormatter={(v: number) => fmt(v)} {...AXIS} />
          <YAxis type="category" dataKey="label" tick={TICK} width={width} {...AXIS} />
          <Tooltip {...TOOLTIP} cursor={{ fill: "var(--bg-soft)" }} formatter={(v) => [fmt(Number(v)), ""]} />
          <Bar dataKey="value" isAnimationActive={false}>
            {bars.map((b) => <Cell key={b.label} fill={b.color} />)}
            <LabelList dataKey="value" position="right" formatter={(v) => fmt(Number(v))} style={TICK} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

const log10 = (v: number) => Math.log10(Math.max(v, 1e-300));

function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.ceil(log10(lo)); e <= Math.floor(log10(hi)); e++) out.push(10 ** e);
  return out.length > 7 ? out.filter((_, i) => i % 2 === 0) : out;
}

export interface Series { label: string; color: string; points: [number, number][]; dashed?: boolean }

interface PlotProps {
  title: string; series: Series[]; xLabel: string; yLabel: string; logX?: boolean; logY?: boolean;
  fmtX?: (v: number) => string; fmtY?: (v: number) => string; markers?: { x: number; y: number; label: string; color: string }[];
  xDomain?: [number, number]; yDomain?: [number, number];
}

/** A line chart (log or linear axes) with optional labelled markers. */
export function Plot({ title, series, xLabel, yLabel, logX, logY, fmtX = tickNum, fmtY = tickNum, markers = [], xDomain, yDomain }: PlotProps) {
  const keep = (p: [number, number]) => (!logX || p[0] > 0) && (!logY || p[1] > 0);
  const xs = series.flatMap((s) => s.points.filter(keep).map((p) => p[0])).concat(markers.map((m) => m.x)).filter((v) => !logX || v > 0);
  const ys = series.flatMap((s) => s.points.filter(keep).map((p) => p[1])).concat(markers.map((m) => m.y)).filter((v) => !logY || v > 0);
  if (!xs.length || !ys.length) return <figure className="lab-chart"><figcaption>{title}</figcaption><p>No data.</p></figure>;
  const x = xDomain ?? [Math.min(...xs), Math.max(...xs)];
  const y = yDomain ?? [logY ? Math.min(...ys) : Math.min(0, ...ys), Math.max(...ys) * (logY ? 1 : 1.05)];
  if (x[1] === x[0]) x[1] = x[0] === 0 ? 1 : x[0] * 10;
  if (y[1] === y[0]) y[1] = y[0] === 0 ? 1 : y[0] * 10;
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={300}>
        <ComposedChart role="img" aria-label={title} margin={{ top: 12, right: 24, bottom: 24, left: 12 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis type="number" dataKey="x" scale={logX ? "log" : "linear"} domain={x} allowDataOverflow ticks={logX ? logTicks(x[0], x[1]) : undefined}
            tick={TICK} tickFormatter={fmtX} {...AXIS}
            label={{ value: xLabel, position: "insideBottom", offset: -14, fill: "var(--fg-soft)", fontSize: 12 }} />
          <YAxis type="number" dataKey="y" scale={logY ? "log" : "linear"} domain={y} allowDataOverflow ticks={logY ? logTicks(y[0], y[1]) : undefined}
            tick={TICK} tickFormatter={fmtY} width={64} {...AXIS}
            label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 4, fill: "var(--fg-soft)", fontSize: 12, style: { textAnchor: "middle" } }} />
          <Tooltip {...TOOLTIP} labelFormatter={(v) => `${xLabel}: ${fmtX(Number(v))}`}
            formatter={(v, name) => [fmtY(Number(v)), name]} />
          {series.map((s) => (
            <Line key={s.label} name={s.label} data={s.points.filter(keep).map(([px, py]) => ({ x: px, y: py }))} dataKey="y"
              stroke={s.color} strokeWidth={2.5} strokeDasharray={s.dashed ? "6 4" : undefined} dot={false} isAnimationActive={false} />
          ))}
          {markers.map((m) => (
            <ReferenceDot key={m.label} x={m.x} y={m.y} r={6} fill={m.color} stroke="var(--bg)" strokeWidth={2} ifOverflow="extendDomain"
              label={{ value: m.label, position: "top", fill: "var(--fg-soft)", fontSize: 11 }} />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
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
      xDomain={[lo, hi]} yDomain={[Math.min(bandwidth * lo, ...points.map((p) => p.flops)) * 0.8, peak * 1.6]}
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
  const data = values.map((v, i) => ({ expert: i, v }));
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={280}>
        <BarChart data={data} role="img" aria-label={title} barCategoryGap={1} margin={{ top: 12, right: 16, bottom: 24, left: 12 }}>
          <CartesianGrid vertical={false} stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis dataKey="expert" tick={TICK} {...AXIS} label={{ value: "experts (most popular first)", position: "insideBottom", offset: -14, fill: "var(--fg-soft)", fontSize: 12 }} />
          <YAxis tick={TICK} tickFormatter={tickNum} {...AXIS} domain={[0, (max: number) => Math.max(max, line ?? 0)]}
            label={{ value: "tokens", angle: -90, position: "insideLeft", fill: "var(--fg-soft)", fontSize: 12 }} />
          <Tooltip {...TOOLTIP} labelFormatter={(e) => `expert ${e}`} formatter={(v) => [`${Number(v).toFixed(2)} tokens`, ""]} />
          <Bar dataKey="v" isAnimationActive={false}>
            {data.map((d) => <Cell key={d.expert} fill={line !== undefined && d.v > line ? C.waste : color} />)}
          </Bar>
          {line !== undefined && <ReferenceLine y={line} stroke="var(--fg)" strokeDasharray="6 4" strokeWidth={2} />}
        </BarChart>
      </ResponsiveContainer>
      <Legend items={[{ label: "expected tokens per expert", color }, { label: "over capacity (dropped)", color: C.waste }, ...(lineLabel ? [{ label: lineLabel, color: "var(--fg)" }] : [])]} />
    </figure>
  );
}

/** Counts per bin (latency distributions). */
export function Histogram({ title, edges, counts, color, unit }: { title: string; edges: number[]; counts: number[]; color: string; unit: string }) {
  const data = counts.map((c, i) => ({ bin: `${tickNum(edges[i])}–${tickNum(edges[i + 1])}`, mid: (edges[i] + edges[i + 1]) / 2, c }));
  return (
    <figure className="lab-chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={data} role="img" aria-label={title} barCategoryGap={1} margin={{ top: 8, right: 16, bottom: 24, left: 8 }}>
          <CartesianGrid vertical={false} stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis dataKey="mid" tick={TICK} tickFormatter={(v: number) => tickNum(v)} {...AXIS} minTickGap={16}
            label={{ value: unit, position: "insideBottom", offset: -14, fill: "var(--fg-soft)", fontSize: 12 }} />
          <YAxis tick={TICK} allowDecimals={false} width={40} {...AXIS} />
          <Tooltip {...TOOLTIP} labelFormatter={(_l, payload) => `${payload?.[0]?.payload?.bin ?? ""} ${unit}`} formatter={(v) => [`${v} requests`, ""]} />
          <Bar dataKey="c" fill={color} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Several series over one shared x (time series). */
export function TimeSeries({ title, x, series, xUnit }: { title: string; x: number[]; series: { label: string; color: string; values: number[] }[]; xUnit: string }) {
  return (
    <Plot title={title} xLabel={xUnit} yLabel="" series={series.map((s) => ({ label: s.label, color: s.color, points: s.values.map((v, i) => [x[i], v]) }))} />
  );
}

export interface Dot { x: number; y: number; key: number; highlight: boolean; label: string }

/** Cost against latency, one dot per configuration, the frontier joined. */
export function ScatterPlot({ title, dots, xLabel, yLabel }: { title: string; dots: Dot[]; xLabel: string; yLabel: string }) {
  const frontier = dots.filter((d) => d.highlight).sort((a, b) => a.x - b.x);
  const others = dots.filter((d) => !d.highlight);
  const dot = (r: number) => (props: unknown) => {
    const { cx, cy, fill } = props as { cx: number; cy: number; fill: string };
    return <circle cx={cx} cy={cy} r={r} fill={fill} />;
  };
  return (
    <figure className="lab-chart" data-testid="pareto-plot">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={300}>
        <ScatterChart role="img" aria-label={title} margin={{ top: 12, right: 24, bottom: 24, left: 12 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis type="number" dataKey="x" name={xLabel} tick={TICK} tickFormatter={tickNum} {...AXIS} domain={[0, "auto"]}
            label={{ value: xLabel, position: "insideBottom", offset: -14, fill: "var(--fg-soft)", fontSize: 12 }} />
          <YAxis type="number" dataKey="y" name={yLabel} tick={TICK} tickFormatter={tickNum} width={56} {...AXIS} domain={[0, "auto"]}
            label={{ value: yLabel, angle: -90, position: "insideLeft", fill: "var(--fg-soft)", fontSize: 12, style: { textAnchor: "middle" } }} />
          <Tooltip {...TOOLTIP} cursor={{ strokeDasharray: "3 3" }} content={({ payload }) => {
            const d = payload?.[0]?.payload as Dot | undefined;
            return d ? <div className="lab-tooltip">{d.label}</div> : null;
          }} />
          <Scatter name="other points" data={others} fill={C.waste} shape={dot(3)} isAnimationActive={false} />
          <Scatter name="Pareto frontier (meets SLO)" data={frontier} fill={C.decode} line={{ stroke: C.decode, strokeWidth: 1.5 }} shape={dot(5)} isAnimationActive={false} />
        </ScatterChart>
      </ResponsiveContainer>
      <Legend items={[{ label: "Pareto frontier (meets SLO)", color: C.decode }, { label: "other points", color: C.waste }]} />
    </figure>
  );
}
