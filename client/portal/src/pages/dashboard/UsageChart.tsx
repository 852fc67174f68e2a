import type { UsageDay } from './types';
import { formatCount, formatDay } from './format';

const W = 600;
const H = 200;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

/** Each series differs in line style as well as colour, so the chart never relies on colour alone. */
const series = [
  { key: 'writes', label: 'Writes', className: 'dash-line-writes', dash: undefined },
  { key: 'reads', label: 'Reads', className: 'dash-line-reads', dash: '8 4' },
  { key: 'searches', label: 'Searches', className: 'dash-line-searches', dash: '2 3' },
] as const;

function niceMax(n: number): number {
  if (n <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * magnitude >= n / 1) ?? 10;
  return step * magnitude;
}

/**
 * The last 30 days of writes, reads and searches as a small hand-drawn SVG line chart (no chart
 * library), with the same numbers in a visually hidden table for screen readers.
 */
export function UsageChart({ days }: { days: readonly UsageDay[] }) {
  const max = niceMax(Math.max(0, ...days.flatMap((d) => [d.writes, d.reads, d.searches])));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (days.length <= 1 ? innerW / 2 : (i / (days.length - 1)) * innerW);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const ticks = [0, max / 2, max];
  const labelled = days.length > 0 ? [0, Math.floor((days.length - 1) / 2), days.length - 1] : [];
  return (
    <section aria-labelledby="usage-heading" className="card dash-section">
      <h2 id="usage-heading">Usage, last 30 days</h2>
      <figure className="dash-chart">
        <svg viewBox={`0 0 ${W} ${H}`} role="presentation" aria-hidden="true" focusable="false" preserveAspectRatio="none">
          {ticks.map((t) => (
            <g key={t}>
              <line className="dash-grid" x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
              <text className="dash-axis" x={PAD.left - 6} y={y(t) + 4} textAnchor="end">
                {formatCount(t)}
              </text>
            </g>
          ))}
          {labelled.map((i) => (
            <text
              key={i}
              className="dash-axis"
              x={x(i)}
              y={H - 8}
              textAnchor={i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle'}
            >
              {formatDay(days[i]!.date)}
            </text>
          ))}
          {series.map((s) => (
            <polyline
              key={s.key}
              className={`dash-line ${s.className}`}
              strokeDasharray={s.dash}
              points={days.map((d, i) => `${x(i)},${y(d[s.key])}`).join(' ')}
            />
          ))}
        </svg>
        <figcaption>
          <ul className="dash-legend" aria-hidden="true">
            {series.map((s) => (
              <li key={s.key}>
                <svg width="28" height="10" aria-hidden="true" focusable="false">
                  <line className={`dash-line ${s.className}`} strokeDasharray={s.dash} x1="0" x2="28" y1="5" y2="5" />
                </svg>
                {s.label}
              </li>
            ))}
          </ul>
          <span className="visually-hidden">The table below gives the same numbers for each day.</span>
        </figcaption>
      </figure>
      {/* A table ignores a 1px width; the wrapper is what hides it. */}
      <div className="visually-hidden">
        <table>
          <caption>Writes, reads and searches per day (UTC), last 30 days, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Writes</th>
              <th scope="col">Reads</th>
              <th scope="col">Searches</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                <td>{d.writes}</td>
                <td>{d.reads}</td>
                <td>{d.searches}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
