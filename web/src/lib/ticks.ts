// Tick positions for a chart's x axis (line-chart.tsx).

/** Up to `count` x ticks from `min` to `max` (both included). */
export function xTicks(min: number, max: number, count: number, integer: boolean): number[] {
  if (max <= min) return [min];
  if (integer) {
    const step = Math.max(1, Math.ceil((max - min) / Math.max(1, count - 1)));
    const out: number[] = [];
    for (let v = min; v < max; v += step) out.push(v);
    out.push(max);
    return out;
  }
  return Array.from({ length: count }, (_, i) => min + ((max - min) * i) / (count - 1));
}
