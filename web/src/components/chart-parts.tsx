// Parts every chart shares: its numbers as a table behind a <details>, the y grid with its tick labels, and the axis
// titles (with units).
import type { ReactNode } from 'react';

/** The plot area inside a chart's SVG, in viewBox units. */
export interface PlotArea {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface NumbersRow {
  readonly key: string;
  /** The row's heading (first column). */
  readonly head: string;
  /** One value per column after the first. */
  readonly cells: readonly string[];
}

/** "Show the numbers as a table": a chart's values for screen readers and anyone who wants them exact. */
export function NumbersTable(props: { columns: readonly string[]; rows: readonly NumbersRow[] }) {
  return (
    <details>
      <summary>Show the numbers as a table</summary>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr key={r.key}>
                <th scope="row">{r.head}</th>
                {props.columns.slice(1).map((column, i) => (
                  <td key={column}>{r.cells[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** Horizontal grid lines at `ticks`, each labelled left of the plot. */
export function YGrid(props: { plot: PlotArea; ticks: readonly number[]; y: (v: number) => number; format: (v: number) => string }) {
  const { plot, y } = props;
  return (
    <g className="grid">
      {props.ticks.map((t) => (
        <g key={t}>
          <line x1={plot.left} x2={plot.left + plot.width} y1={y(t)} y2={y(t)} />
          <text className="tick" x={plot.left - 8} y={y(t)} dy="0.32em" textAnchor="end">
            {props.format(t)}
          </text>
        </g>
      ))}
    </g>
  );
}

/** The x axis title under the plot and, when given, the y axis title turned along the left edge. */
export function AxisTitles(props: { plot: PlotArea; svgHeight: number; x: ReactNode; y?: ReactNode }) {
  const { plot } = props;
  return (
    <>
      <text className="axis-title" x={plot.left + plot.width / 2} y={props.svgHeight - 6} textAnchor="middle">
        {props.x}
      </text>
      {props.y !== undefined && (
        <text className="axis-title" transform={`translate(16 ${plot.top + plot.height / 2}) rotate(-90)`} textAnchor="middle">
          {props.y}
        </text>
      )}
    </>
  );
}
