// A bar chart drawn as SVG (no chart library): one bar per point, the value in each bar's title,
// and the whole chart described for screen readers.
export interface Point {
  label: string;
  value: number;
}

const W = 640;
const H = 180;
const PAD = 22;

export function BarChart({ title, points }: { title: string; points: Point[] }) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const step = (W - PAD * 2) / Math.max(1, points.length);
  const total = points.reduce((s, p) => s + p.value, 0);
  return (
    <figure>
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${total.toLocaleString()} in all`}>
        {points.map((p, i) => {
          const h = ((H - PAD * 2) * p.value) / max;
          return (
            <g key={p.label}>
              <rect x={PAD + i * step + 2} y={H - PAD - h} width={Math.max(1, step - 4)} height={h}>
                <title>
                  {p.label}: {p.value.toLocaleString()}
                </title>
              </rect>
              {(points.length <= 16 || i % Math.ceil(points.length / 16) === 0) && (
                <text x={PAD + i * step + step / 2} y={H - 6} text-anchor="middle">
                  {p.label.slice(5)}
                </text>
              )}
            </g>
          );
        })}
        <text x={PAD} y={12}>
          max {max.toLocaleString()}
        </text>
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}

/** The UTC days (yyyy-mm-dd) of the last `n` days, oldest first, today last. */
export function lastDays(n: number): string[] {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}
