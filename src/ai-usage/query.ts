import type { Queryable } from '../platform/db/index.ts';

/** What `GET /v1/ai-usage` can group by, and the column each reads. */
export const USAGE_DIMENSIONS = ['day', 'provider', 'workspace', 'project', 'user', 'api_key', 'model'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];
/** What can be filtered by exact value (any of a list). */
export const USAGE_FILTERS = ['provider', 'workspace', 'project', 'user', 'api_key', 'model'] as const;
export type UsageFilter = (typeof USAGE_FILTERS)[number];

const COLUMN: Readonly<Record<UsageDimension, string>> = {
  day: 'day',
  provider: 'provider',
  workspace: 'workspace',
  project: 'project',
  user: '"user"',
  api_key: 'api_key',
  model: 'model',
};

export interface UsageQuery {
  readonly tenantId: string;
  readonly filters?: Partial<Record<UsageFilter, readonly string[]>>;
  readonly kind?: 'usage' | 'cost';
  /** Inclusive UTC days, `YYYY-MM-DD`. */
  readonly from?: string;
  readonly to?: string;
  readonly groupBy: readonly UsageDimension[];
  readonly limit: number;
}

export interface UsageTotals {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cost_usd: number;
}
export type UsageRow = Partial<Record<UsageDimension, string | null>> & UsageTotals;

export interface UsageAnswer {
  readonly rows: UsageRow[];
  readonly totals: UsageTotals;
  /** More groups matched than `limit`: the rows are the first `limit` in the answer's order. */
  readonly truncated: boolean;
}

/** Dollars as a number with at most 6 decimals (numeric sums come back as text). */
const dollars = (v: unknown) => Math.round(Number(v ?? 0) * 1e6) / 1e6;

function totalsOf(r: Record<string, unknown>): UsageTotals {
  return { requests: Number(r.requests ?? 0), input_tokens: Number(r.input_tokens ?? 0), output_tokens: Number(r.output_tokens ?? 0), cost_usd: dollars(r.cost_usd) };
}

/**
 * The tenant's usage rows summed per group (none = one row of everything), filtered; ordered by day ascending when
 * grouped by day (then spend, descending), else by spend descending (then input tokens, then the keys). `totals` sums
 * every matching row, not only the first `limit` groups.
 */
export async function queryUsage(db: Queryable, q: UsageQuery): Promise<UsageAnswer> {
  const params: unknown[] = [q.tenantId];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = ['tenant_id = $1'];
  for (const f of USAGE_FILTERS) {
    const values = q.filters?.[f];
    if (values && values.length > 0) where.push(`${COLUMN[f]} = ANY(${add([...values])}::text[])`);
  }
  if (q.kind) where.push(`kind = ${add(q.kind)}`);
  if (q.from) where.push(`day >= ${add(q.from)}::date`);
  if (q.to) where.push(`day <= ${add(q.to)}::date`);
  const sums = `coalesce(sum(requests), 0)::text AS requests, coalesce(sum(input_tokens), 0)::text AS input_tokens,
                coalesce(sum(output_tokens), 0)::text AS output_tokens, coalesce(sum(cost_usd), 0)::text AS cost_usd`;
  const whereSql = where.join(' AND ');
  const keys = q.groupBy.map((d) => (d === 'day' ? 'day::text AS day' : `${COLUMN[d]} AS "${d}"`));
  const groupSql = q.groupBy.length > 0 ? `GROUP BY ${q.groupBy.map((d) => COLUMN[d]).join(', ')}` : '';
  const order = [
    ...(q.groupBy.includes('day') ? ['day ASC'] : []),
    'sum(cost_usd) DESC',
    'sum(input_tokens) DESC',
    ...q.groupBy.filter((d) => d !== 'day').map((d) => `${COLUMN[d]} ASC NULLS LAST`),
  ];
  const r = await db.query<Record<string, unknown>>(
    `SELECT ${[...keys, sums].join(', ')} FROM ai_usage WHERE ${whereSql} ${groupSql} ORDER BY ${order.join(', ')} LIMIT ${add(q.limit + 1)}`,
    params,
  );
  const t = await db.query<Record<string, unknown>>(`SELECT ${sums} FROM ai_usage WHERE ${whereSql}`, params.slice(0, -1));
  const rows = r.rows.slice(0, q.limit).map((row) => {
    const out: Record<string, unknown> = {};
    for (const d of q.groupBy) out[d] = row[d] ?? null;
    return { ...out, ...totalsOf(row) } as UsageRow;
  });
  return { rows, totals: totalsOf(t.rows[0] ?? {}), truncated: r.rows.length > q.limit };
}

/** A CSV cell: quoted when it holds a comma, quote or line break; a text starting with = + - @ (or a tab/CR) gets a leading ' so a spreadsheet never runs it as a formula. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The answer as CSV: a header row (the group keys, then the sums), one line per row, CRLF line ends (RFC 4180). */
export function usageCsv(groupBy: readonly UsageDimension[], rows: readonly UsageRow[]): string {
  const columns = [...groupBy, 'requests', 'input_tokens', 'output_tokens', 'cost_usd'] as const;
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell((row as unknown as Record<string, unknown>)[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
