// A small line chart with both axes titled (with units), tick labels, an aria-label that says what it shows, and its
// numbers as a table behind a <details>: the sync history's documents over time and the training loss per epoch.
import { niceTicks } from '../lib/ai-usage.ts';
import { xTicks } from '../lib/ticks.ts';
import { AxisTitles, NumbersTable, YGrid } from './chart-parts.tsx';

export interface LinePoint {
  readonly x: number;
  readonly y: number;
}

export interface LineChartProps {
  readonly id: string;
  readonly title: string;
  readonly points: readonly LinePoint[];
  /** Axis titles with their units: "Epoch", "Loss (mean squared error)". */
  readonly xLabel: string;
  readonly yLabel: string;
  readonly formatX: (x: number) => string;
  readonly formatY: (y: number) => string;
  /** Whole-number x ticks only (epochs). */
  readonly integerX?: boolean;
  /** A sentence under the title. */
  readonly note?: string;
}

export function LineChart(props: LineChartProps) {
  const { points } = props;
  const W = 560;
  const H = 240;
  const m = { top: 14, right: 24, bottom: 46, left: 74 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const plot = { left: m.left, top: m.top, width: pw, height: ph };
  const xs = points.map((p) => p.x);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const ticks = niceTicks(Math.max(0, ...points.map((p) => p.y)));
  const top = ticks[ticks.length - 1] ?? 1;
  const x = (v: number) => m.left + (x1 === x0 ? pw / 2 : ((v - x0) / (x1 - x0)) * pw);
  const y = (v: number) => m.top + ph - (v / top) * ph;
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
  const first = points[0];
  const last = points[points.length - 1];
  const summary =
    first && last
      ? `${props.title}: ${points.length} points, ${props.xLabel} ${props.formatX(first.x)} to ${props.formatX(last.x)}; ${props.yLabel} from ${props.formatY(first.y)} to ${props.formatY(last.y)}.`
      : `${props.title}: no points yet.`;
  return (
    <figure className="card chart-card" data-testid={props.id}>
      <figcaption>
        <h3 id={`${props.id}-title`}>{props.title}</h3>
        {props.note && <p className="muted small">{props.note}</p>}
      </figcaption>
      {points.length === 0 ? (
        <p className="muted">No points yet.</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} className="chart-svg" role="img" aria-label={summary}>
            <YGrid plot={plot} ticks={ticks} y={y} format={props.formatY} />
            <path d={d} fill="none" stroke="#3b6fd4" strokeWidth="2" />
            {points.map((p) => (
              <circle key={`${p.x}:${p.y}`} cx={x(p.x)} cy={y(p.y)} r={3} fill="#3b6fd4">
                <title>{`${props.xLabel} ${props.formatX(p.x)}: ${props.formatY(p.y)}`}</title>
              </circle>
            ))}
            <g className="axis">
              <line x1={m.left} x2={W - m.right} y1={m.top + ph} y2={m.top + ph} />
              <line x1={m.left} x2={m.left} y1={m.top} y2={m.top + ph} />
              {xTicks(x0, x1, 5, props.integerX === true).map((t) => (
                <g key={t}>
                  <line x1={x(t)} x2={x(t)} y1={m.top + ph} y2={m.top + ph + 4} />
                  <text className="tick" x={x(t)} y={m.top + ph + 17} textAnchor="middle">
                    {props.formatX(t)}
                  </text>
                </g>
              ))}
            </g>
            <AxisTitles plot={plot} svgHeight={H} x={props.xLabel} y={props.yLabel} />
          </svg>
          <NumbersTable
            columns={[props.xLabel, props.yLabel]}
            rows={points.map((p) => ({ key: `${p.x}:${p.y}`, head: props.formatX(p.x), cells: [props.formatY(p.y)] }))}
          />
        </>
      )}
    </figure>
  );
}
