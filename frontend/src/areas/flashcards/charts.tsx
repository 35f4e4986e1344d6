// Small SVG charts for the flashcard stats; colours come from the CSS variables in styles.css.

export interface DayCount { date: string; count: number }
export interface Retention { reviews: number; passed: number; retention: number | null }

function Legend({ items }: { items: Array<[string, string]> }) {
  return (
    <div className="legend">
      {items.map(([colour, label]) => (
        <span key={label}><span className="swatch" style={{ background: `var(${colour})` }} />{label}</span>
      ))}
    </div>
  );
}

export function Heatmap({ data }: { data: DayCount[] }) {
  const max = Math.max(1, ...data.map((d) => d.count));
  const size = 11;
  const weeks = Math.ceil(data.length / 7);
  return (
    <figure>
      <svg role="img" aria-label="Reviews per day over the last year" width={weeks * (size + 2)} height={7 * (size + 2)}
        data-testid="heatmap">
        {data.map((d, i) => (
          <rect key={d.date} x={Math.floor(i / 7) * (size + 2)} y={(i % 7) * (size + 2)} width={size} height={size} rx={2}
            fill={d.count ? "var(--c-tokens)" : "var(--bg-soft)"} fillOpacity={d.count ? 0.25 + (0.75 * d.count) / max : 1}
            stroke="var(--border)" strokeWidth={0.5} data-count={d.count}>
            <title>{`${d.date}: ${d.count} review${d.count === 1 ? "" : "s"}`}</title>
          </rect>
        ))}
      </svg>
      <Legend items={[["--c-tokens", "reviews (darker = more)"]]} />
    </figure>
  );
}

export function ForecastChart({ data }: { data: DayCount[] }) {
  const max = Math.max(1, ...data.map((d) => d.count));
  const width = 600;
  const height = 140;
  const axis = 34;  // room for the y values
  const bar = (width - axis) / data.length;
  return (
    <figure>
      <svg role="img" aria-label="Cards due per day for the next 30 days" viewBox={`0 0 ${width} ${height + 16}`} width="100%"
        style={{ maxWidth: width }} data-testid="forecast-chart">
        {data.map((d, i) => {
          const h = (height * d.count) / max;
          return (
            <rect key={d.date} x={axis + i * bar + 1} y={height - h} width={bar - 2} height={h} fill="var(--c-decode)">
              <title>{`${d.date}: ${d.count} due`}</title>
            </rect>
          );
        })}
        <line x1={axis} x2={width} y1={height} y2={height} stroke="var(--border)" />
        <line x1={axis} x2={width} y1={0.5} y2={0.5} stroke="var(--border)" strokeDasharray="3 3" />
        <g data-testid="forecast-y-axis" fontSize={11} fill="var(--fg-soft)" textAnchor="end">
          <text x={axis - 4} y={10}>{max}</text>
          <text x={axis - 4} y={height / 2 + 4}>{Number.isInteger(max / 2) ? max / 2 : (max / 2).toFixed(1)}</text>
          <text x={axis - 4} y={height}>0</text>
        </g>
        <text x={axis} y={height + 13} fontSize={11} fill="var(--fg-soft)">today</text>
        <text x={width} y={height + 13} fontSize={11} fill="var(--fg-soft)" textAnchor="end">+30 days (cards due a day)</text>
      </svg>
      <Legend items={[["--c-decode", "cards due"]]} />
    </figure>
  );
}

export function RetentionChart({ data }: { data: Record<string, Retention> }) {
  const entries = Object.entries(data);
  const width = 600;
  const row = 26;
  return (
    <figure>
      <svg role="img" aria-label="True retention by period" viewBox={`0 0 ${width} ${entries.length * row}`} width="100%"
        style={{ maxWidth: width }} data-testid="retention-chart">
        {entries.map(([period, value], i) => {
          const share = value.retention ?? 0;
          return (
            <g key={period} transform={`translate(0, ${i * row})`}>
              <text x={0} y={17} fontSize={12} fill="var(--fg)">{period}</text>
              <rect x={50} y={4} width={(width - 200) * share} height={row - 8} fill="var(--c-memory)" />
              <rect x={50 + (width - 200) * share} y={4} width={(width - 200) * (value.retention === null ? 1 : 1 - share)}
                height={row - 8} fill="var(--c-waste)" fillOpacity={0.4} />
              <text x={width - 140} y={17} fontSize={12} fill="var(--fg)">
                {value.retention === null ? "no due card reviewed" : `${(share * 100).toFixed(1)}% of ${value.reviews}`}
              </text>
            </g>
          );
        })}
      </svg>
      <Legend items={[["--c-memory", "recalled (Hard/Good/Easy)"], ["--c-waste", "forgotten (Again)"]]} />
      <figcaption className="muted">True retention counts the answers to cards that came back due for review (not new
        cards, not learning steps): on the first day there are none yet.</figcaption>
    </figure>
  );
}
