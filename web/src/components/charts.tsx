// Hand-written SVG charts: every one has a title, axes with units, a legend where there are series, an aria-label
// that says what it shows, and its numbers as a table behind a <details>.
import { useEffect, useRef, useState } from 'react';
import { formatCount, formatUsd, labelledDays, niceTicks, OTHER, type Series, shortDay } from '../lib/ai-usage.ts';
import { AxisTitles, NumbersTable, YGrid } from './chart-parts.tsx';

export type Unit = 'usd' | 'tokens';

const PALETTE = ['#3b6fd4', '#e69f00', '#009e73', '#cc79a7', '#d55e00', '#56b4e9', '#8c6d31', '#7b4fbf'];
const OTHER_COLOR = '#9aa1ad';

export function seriesColor(name: string, i: number): string {
  return name === OTHER ? OTHER_COLOR : (PALETTE[i % PALETTE.length] ?? OTHER_COLOR);
}

export function formatUnit(v: number, unit: Unit): string {
  return unit === 'usd' ? formatUsd(v) : formatCount(v);
}

function exact(v: number, unit: Unit): string {
  return unit === 'usd' ? `$${v.toFixed(2)}` : Math.round(v).toLocaleString('en-US');
}

/**
 * The width the chart's box has, in CSS pixels: the SVG is drawn at that width (one viewBox unit = one pixel), so its
 * text keeps its size from a phone to a wide screen instead of shrinking with the picture.
 */
function useBoxWidth(initial: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const measure = () => {
      const w = Math.round(el.clientWidth);
      if (w > 0) setWidth(w);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return { ref, width };
}

/** A stacked bar per day, one colour per series. */
export function StackedDailyChart(props: { id: string; title: string; days: readonly string[]; series: readonly Series[]; unit: Unit; axisLabel: string; seriesLabel: string }) {
  const { days, series, unit } = props;
  const box = useBoxWidth(960);
  const W = Math.max(280, box.width);
  const H = W < 600 ? 240 : 300;
  const m = { top: 12, right: 20, bottom: 48, left: 72 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const plot = { left: m.left, top: m.top, width: pw, height: ph };
  const totals = days.map((_, i) => series.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const ticks = niceTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1] ?? 1;
  const y = (v: number) => m.top + ph - (v / top) * ph;
  const slot = pw / Math.max(1, days.length);
  const bw = Math.max(1, Math.min(28, slot * 0.72));
  const x = (i: number) => m.left + i * slot + (slot - bw) / 2;
  const labelled = labelledDays(days.length, Math.max(2, Math.floor(pw / 64)));
  const grand = totals.reduce((a, b) => a + b, 0);
  const first = days[0] ?? '';
  const last = days[days.length - 1] ?? '';
  const summary = `${props.title}, ${first} to ${last}: ${exact(grand, unit)} in all${series.length ? `; ${series.map((s) => `${s.name} ${exact(s.total, unit)}`).join(', ')}` : ''}.`;
  return (
    <figure className="card chart-card" data-testid={props.id}>
      <figcaption>
        <h2 id={`${props.id}-title`}>{props.title}</h2>
      </figcaption>
      {series.length === 0 ? (
        <p className="muted">Nothing in these days.</p>
      ) : (
        <>
          <div className="chart-box" ref={box.ref}>
            <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} className="chart-svg" role="img" aria-label={summary}>
              <YGrid plot={plot} ticks={ticks} y={y} format={(t) => formatUnit(t, unit)} />
              {series.map((s, si) => (
                <g key={s.name} data-series={s.name} fill={seriesColor(s.name, si)}>
                  {days.map((d, i) => {
                    const v = s.values[i] ?? 0;
                    if (v <= 0) return null;
                    const below = series.slice(0, si).reduce((a, o) => a + (o.values[i] ?? 0), 0);
                    return (
                      <rect key={d} x={x(i)} width={bw} y={y(below + v)} height={Math.max(0.5, y(below) - y(below + v))}>
                        <title>{`${d} · ${s.name}: ${exact(v, unit)}`}</title>
                      </rect>
                    );
                  })}
                </g>
              ))}
              <g className="axis">
                <line x1={m.left} x2={W - m.right} y1={m.top + ph} y2={m.top + ph} />
                <line x1={m.left} x2={m.left} y1={m.top} y2={m.top + ph} />
                {days.map((d, i) =>
                  labelled.has(i) ? (
                    <g key={d}>
                      <line x1={x(i) + bw / 2} x2={x(i) + bw / 2} y1={m.top + ph} y2={m.top + ph + 4} />
                      <text className="tick" x={x(i) + bw / 2} y={m.top + ph + 17} textAnchor="middle">
                        {shortDay(d)}
                      </text>
                    </g>
                  ) : null,
                )}
              </g>
              <AxisTitles
                plot={plot}
                svgHeight={H}
                x={<>Day (UTC), {first.slice(0, 4) === last.slice(0, 4) ? first.slice(0, 4) : `${first.slice(0, 4)}–${last.slice(0, 4)}`}</>}
                y={props.axisLabel}
              />
            </svg>
          </div>
          <ul className="legend" aria-label={`${props.seriesLabel}s`}>
            {series.map((s, si) => (
              <li key={s.name}>
                <span className="swatch" style={{ background: seriesColor(s.name, si) }} aria-hidden="true" />
                {s.name} <span className="muted">{exact(s.total, unit)}</span>
              </li>
            ))}
          </ul>
          <NumbersTable
            columns={['Day', ...series.map((s) => s.name), 'Total']}
            rows={days.flatMap((d, i) =>
              (totals[i] ?? 0) > 0 ? [{ key: d, head: d, cells: [...series.map((s) => exact(s.values[i] ?? 0, unit)), exact(totals[i] ?? 0, unit)] }] : [],
            )}
          />
        </>
      )}
    </figure>
  );
}

export interface Bar {
  readonly label: string;
  readonly value: number;
}

/** Horizontal bars, largest first. */
export function BarChart(props: { id: string; title: string; note?: string; bars: readonly Bar[]; unit: Unit; axisLabel: string; nameLabel: string }) {
  const { bars, unit } = props;
  const box = useBoxWidth(460);
  const W = Math.max(260, box.width);
  const m = { top: 8, right: 64, bottom: 44, left: Math.min(170, Math.round(W * 0.36)) };
  /** Characters of a label that fit left of the bars (about 6.5 px each at 11 px). */
  const fit = Math.max(6, Math.floor((m.left - 12) / 6.5));
  const band = 26;
  const ph = Math.max(1, bars.length) * band;
  const H = m.top + ph + m.bottom;
  const pw = W - m.left - m.right;
  const ticks = niceTicks(Math.max(0, ...bars.map((b) => b.value)), 3);
  const top = ticks[ticks.length - 1] ?? 1;
  const x = (v: number) => m.left + (v / top) * pw;
  const summary = `${props.title}: ${bars.map((b) => `${b.label} ${exact(b.value, unit)}`).join(', ')}.`;
  return (
    <figure className="card chart-card" data-testid={props.id}>
      <figcaption>
        <h2>{props.title}</h2>
        {props.note && <p className="muted small">{props.note}</p>}
      </figcaption>
      {bars.length === 0 ? (
        <p className="muted">Nothing in these days.</p>
      ) : (
        <>
          <div className="chart-box" ref={box.ref}>
            <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} className="chart-svg" role="img" aria-label={summary}>
              <g className="grid">
                {ticks.map((t) => (
                  <g key={t}>
                    <line x1={x(t)} x2={x(t)} y1={m.top} y2={m.top + ph} />
                    <text className="tick" x={x(t)} y={m.top + ph + 16} textAnchor="middle">
                      {formatUnit(t, unit)}
                    </text>
                  </g>
                ))}
              </g>
              {bars.map((b, i) => {
                const yy = m.top + i * band + 4;
                const short = b.label.length > fit ? `${b.label.slice(0, fit - 1)}…` : b.label;
                return (
                  <g key={b.label} data-bar={b.label}>
                    <text className="tick" x={m.left - 8} y={yy + (band - 8) / 2} dy="0.32em" textAnchor="end">
                      {short}
                      <title>{b.label}</title>
                    </text>
                    <rect x={m.left} y={yy} width={Math.max(1, x(b.value) - m.left)} height={band - 8} className="bar">
                      <title>{`${b.label}: ${exact(b.value, unit)}`}</title>
                    </rect>
                    <text className="value" x={x(b.value) + 6} y={yy + (band - 8) / 2} dy="0.32em">
                      {formatUnit(b.value, unit)}
                    </text>
                  </g>
                );
              })}
              <line className="axis-line" x1={m.left} x2={m.left} y1={m.top} y2={m.top + ph} />
              <AxisTitles plot={{ left: m.left, top: m.top, width: pw, height: ph }} svgHeight={H} x={props.axisLabel} />
            </svg>
          </div>
          <NumbersTable columns={[props.nameLabel, props.axisLabel]} rows={bars.map((b) => ({ key: b.label, head: b.label, cells: [exact(b.value, unit)] }))} />
        </>
      )}
    </figure>
  );
}
