import type { VendorLimits } from './contract.ts';
import type { Queryable } from '../../platform/db/executor.ts';

/**
 * A connector's vendor rate limit shared by every process (API processes answering webhooks and actions, workers
 * running syncs): the token buckets of `limits.ts` (second, minute, hour windows), kept in
 * `connector_rate_buckets` and taken in ONE statement per vendor request. `limits.ts` `takeToken` is the reference:
 * for the same limits and times this answers exactly what it answers (tested against it).
 *
 * The statement is an INSERT … ON CONFLICT DO UPDATE: PostgreSQL (and PGlite) lock the connector's row and compute
 * the new tokens from its latest committed version, so concurrent takers never both spend one token. Refill,
 * the all-windows check and the take happen in the SET expressions; `wait_ms` records the answer (0 = granted).
 * A vendor 429 stores `blocked_until_ms`: every process then waits until that instant before any call.
 *
 * Times are ms since the epoch. Without an explicit `nowMs` the database's clock is used, so processes on hosts
 * with skewed clocks still share one timeline. Changed limits (settings edited) keep the tokens, clamped to the new
 * capacity (a window that had no limit starts full) — unlike recreating the buckets, this never grants a new burst.
 */

const WINDOWS = [
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
] as const;

const NOW = 'EXCLUDED.at_ms';
const cap = (w: string) => `EXCLUDED.cap_${w}`;
/** The window's tokens refilled up to now (NULL when the window has no limit). */
const refilled = (w: string, ms: number) =>
  `(CASE WHEN ${cap(w)} IS NULL THEN NULL ELSE least(${cap(w)}, coalesce(b.tok_${w}, ${cap(w)}) + greatest(0, ${NOW} - b.at_ms) * ${cap(w)} / ${ms}) END)`;
/** ms until the window has a whole token (<= 0 when it has one). */
const need = (w: string, ms: number) => `coalesce(ceil((1 - ${refilled(w, ms)}) * ${ms} / ${cap(w)}), 0)`;
const WAIT = `greatest(0, ceil(b.blocked_until_ms - ${NOW}), ${WINDOWS.map(([w, ms]) => need(w, ms)).join(', ')})`;

export const TAKE_TOKEN_SQL = `
INSERT INTO connector_rate_buckets AS b (connector_id, tenant_id, cap_s, cap_m, cap_h, tok_s, tok_m, tok_h, at_ms, blocked_until_ms, wait_ms)
SELECT $1, $2, $3::float8, $4::float8, $5::float8, $3::float8 - 1, $4::float8 - 1, $5::float8 - 1, n.now, 0, 0
FROM (SELECT COALESCE($6::float8, (extract(epoch FROM now()) * 1000)::float8) AS now) n
ON CONFLICT (connector_id) DO UPDATE SET
  ${WINDOWS.map(([w, ms]) => `tok_${w} = ${refilled(w, ms)} - CASE WHEN ${WAIT} = 0 THEN 1 ELSE 0 END`).join(',\n  ')},
  cap_s = EXCLUDED.cap_s, cap_m = EXCLUDED.cap_m, cap_h = EXCLUDED.cap_h,
  at_ms = greatest(b.at_ms, ${NOW}),
  wait_ms = ${WAIT}
RETURNING wait_ms, blocked_until_ms, at_ms`;

export interface TakeResult {
  /** 0 = a token was taken; else ms to wait before asking again (nothing was taken). */
  readonly waitMs: number;
  /** The wait is a vendor 429's block (Retry-After), not the bucket running dry. */
  readonly blocked: boolean;
}

/** True when the limits leave nothing to count (no window limited): no row, no round trip. */
export function unlimited(limits: VendorLimits): boolean {
  return !limits.perSecond && !limits.perMinute && !limits.perHour;
}

/** Takes one token from every limited window of the connector's shared bucket, or answers how long to wait. One statement. */
export async function takeConnectorToken(
  db: Queryable,
  key: { tenantId: string; connectorId: string },
  limits: VendorLimits,
  nowMs?: number,
): Promise<TakeResult> {
  // Capacities below one token could never grant (the fresh row assumes a whole token): the schemas allow integers ≥ 1.
  const c = (v: number | undefined) => (v ? Math.max(1, v) : null);
  const r = await db.query<{ wait_ms: number; blocked_until_ms: number; at_ms: number }>(TAKE_TOKEN_SQL, [
    key.connectorId,
    key.tenantId,
    c(limits.perSecond),
    c(limits.perMinute),
    c(limits.perHour),
    nowMs ?? null,
  ]);
  const row = r.rows[0];
  if (!row) throw new Error('connector_rate_buckets: the take returned no row');
  const waitMs = Number(row.wait_ms);
  return { waitMs, blocked: waitMs > 0 && Number(row.blocked_until_ms) > Number(row.at_ms) };
}

/**
 * A vendor 429: no process calls the vendor for this connector before `delayMs` from now (the later of this and any
 * block already stored wins). Creates the row when the connector has not taken a token yet.
 */
export async function blockConnector(db: Queryable, key: { tenantId: string; connectorId: string }, delayMs: number, nowMs?: number): Promise<void> {
  await db.query(
    `INSERT INTO connector_rate_buckets AS b (connector_id, tenant_id, at_ms, blocked_until_ms)
     SELECT $1, $2, n.now, n.now + $3::float8
     FROM (SELECT COALESCE($4::float8, (extract(epoch FROM now()) * 1000)::float8) AS now) n
     ON CONFLICT (connector_id) DO UPDATE SET blocked_until_ms = greatest(b.blocked_until_ms, EXCLUDED.blocked_until_ms)`,
    [key.connectorId, key.tenantId, Math.max(0, delayMs), nowMs ?? null],
  );
}
