// The AI-usage page's pure parts: filters <-> the URL's query string, rows -> chart series, axis ticks, units.

export interface UsageFilters {
  readonly from: string;
  readonly to: string;
  readonly provider: string;
  readonly user: string;
  readonly model: string;
  readonly api_key: string;
  readonly rule: string;
}

export const FILTER_KEYS = ['provider', 'user', 'model', 'api_key'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

const DAY_MS = 86_400_000;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export function isoDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  return isoDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);
}

function validDay(s: string | null): s is string {
  return !!s && DAY_RE.test(s) && isoDay(Date.parse(`${s}T00:00:00Z`) || 0) === s;
}

/** The default view: the last 30 UTC days, today included. */
export function defaultRange(now: Date): { from: string; to: string } {
  const to = isoDay(now.getTime());
  return { from: addDays(to, -29), to };
}

/** Filters from the query string (a shared link); missing or malformed dates take the default range. */
export function filtersFromQuery(q: URLSearchParams, now: Date): UsageFilters {
  const d = defaultRange(now);
  let from = q.get('from');
  let to = q.get('to');
  if (!validDay(to)) to = d.to;
  if (!validDay(from)) from = addDays(to, -29);
  if (from > to) [from, to] = [to, from];
  return { from, to, provider: q.get('provider') ?? '', user: q.get('user') ?? '', model: q.get('model') ?? '', api_key: q.get('api_key') ?? '', rule: q.get('rule') ?? '' };
}

/** The query string for a view: every set filter, dates always (a shared link shows the same days). */
export function filtersToQuery(f: UsageFilters): string {
  const q = new URLSearchParams();
  q.set('from', f.from);
  q.set('to', f.to);
  for (const k of [...FILTER_KEYS, 'rule'] as const) if (f[k]) q.set(k, f[k]);
  return q.toString();
}

/** The API's filter parameters for a view (without the findings' rule). */
export function usageQuery(f: UsageFilters): Record<string, string> {
  const q: Record<string, string> = { from: f.from, to: f.to };
  for (const k of FILTER_KEYS) if (f[k]) q[k] = f[k];
  return q;
}

/** Every day from `from` to `to`, inclusive (at most `max`, the latest kept). */
export function dayRange(from: string, to: string, max = 800): string[] {
  const out: string[] = [];
  const t1 = Date.parse(`${to}T00:00:00Z`);
  for (let t = Math.max(Date.parse(`${from}T00:00:00Z`), t1 - (max - 1) * DAY_MS); t <= t1; t += DAY_MS) out.push(isoDay(t));
  return out;
}

export interface Series {
  readonly name: string;
  /** One value per day of the chart's days. */
  readonly values: readonly number[];
  readonly total: number;
}

/**
 * Day × series matrix from grouped rows (`day` and `key` columns): the `top` series by total, the rest summed as
 * "other". Days without rows are 0.
 */
export function pivotDaily<R extends object>(rows: readonly R[], days: readonly string[], key: keyof R & string, value: (r: R) => number, top = Number.POSITIVE_INFINITY): Series[] {
  const index = new Map(days.map((d, i) => [d, i]));
  const by = new Map<string, number[]>();
  for (const r of rows) {
    const i = index.get(String((r as { day?: unknown }).day));
    if (i === undefined) continue;
    const name = r[key] === null || r[key] === undefined ? NONE : String(r[key]);
    let vals = by.get(name);
    if (!vals) {
      vals = days.map(() => 0);
      by.set(name, vals);
    }
    vals[i] = (vals[i] ?? 0) + value(r);
  }
  const all = [...by.entries()].map(([name, values]) => ({ name, values, total: values.reduce((a, b) => a + b, 0) })).filter((s) => s.total > 0);
  all.sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  if (all.length <= top) return all;
  const kept = all.slice(0, top);
  const rest = all.slice(top);
  const values = days.map((_, i) => rest.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  return [...kept, { name: OTHER, values, total: values.reduce((a, b) => a + b, 0) }];
}

export const OTHER = 'other';
/** A bucket the provider reports without this key (cost buckets often name no model or user). */
export const NONE = '(not reported)';

/** Axis ticks: 0 and round steps (1, 2, 2.5, 5 × 10^k) up to at least `max`. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/** "$0", "$3.10", "$1.2k", "$3.4M": dollars for axes and bars; `exact`: "$1,234.50". */
export function formatUsd(v: number, exact = false): string {
  const a = Math.abs(v);
  if (exact) return `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (a < 1000) return Number.isInteger(v) ? `$${v}` : `$${v.toFixed(2)}`;
  if (a < 1e6) return `$${trim(v / 1e3)}k`;
  return `$${trim(v / 1e6)}M`;
}

/** "950", "12k", "1.2M", "3.4B" tokens or requests. */
export function formatCount(v: number): string {
  const a = Math.abs(v);
  if (a < 1000) return String(Math.round(v));
  if (a < 1e6) return `${trim(v / 1e3)}k`;
  if (a < 1e9) return `${trim(v / 1e6)}M`;
  return `${trim(v / 1e9)}B`;
}

function trim(x: number): string {
  return (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\.0$/, '');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Nov 20" for an axis tick. */
export function shortDay(day: string): string {
  const m = Number(day.slice(5, 7));
  return `${MONTHS[m - 1] ?? '?'} ${Number(day.slice(8, 10))}`;
}

/** Which of `n` day ticks get a label: about `want` of them, evenly, the last one always. */
export function labelledDays(n: number, want = 8): Set<number> {
  const step = Math.max(1, Math.ceil(n / want));
  const out = new Set<number>();
  for (let i = n - 1; i >= 0; i -= step) out.add(i);
  return out;
}

/** The findings' rules in plain language (the technical name is shown on hover). */
export const RULE_LABELS: Record<string, string> = {
  new_user: 'New user',
  new_api_key: 'New API key',
  new_model: 'New model',
  unsanctioned_provider: 'Provider not on the allow-list',
  unsanctioned_model: 'Model not on the allow-list',
  unsanctioned_project: 'Project not on the allow-list',
  unsanctioned_api_key: 'API key not on the allow-list',
  spend_spike: 'Spend spike',
  token_spike: 'Token spike',
};

export function ruleLabel(rule: string): string {
  return RULE_LABELS[rule] ?? rule.replaceAll('_', ' ');
}
