import type { Queryable } from '../platform/db/executor.ts';
import { storableJson } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { deferInsert, drainDeferred } from '../platform/write-behind.ts';

export interface AuditInput {
  readonly tenantId: string;
  /** Dotted operation name, e.g. `apikey.created`, `auth.sso.login_succeeded`, `mcp.tool_invoked`. */
  readonly action: string;
  readonly actorId?: string | null;
  readonly userId?: string | null;
  readonly details?: Record<string, unknown>;
  readonly at?: Date;
}

/** Who performed an audited action: a principal (key or session id, its tenant, the person or key name). */
export interface AuditActor {
  readonly tenantId: string;
  readonly id: string;
  readonly userId: string;
}

/** An audit event as the API returns it: the fixed fields, then the action's own details spread in. */
export interface AuditEvent {
  readonly id: string;
  readonly event_type: string;
  readonly action: string;
  readonly tenant_id: string;
  readonly actor_id: string | null;
  readonly user_id: string | null;
  readonly timestamp: string;
  readonly details: Record<string, unknown>;
  readonly [extra: string]: unknown;
}

const RESERVED = new Set(['id', 'event_type', 'action', 'tenant_id', 'actor_id', 'user_id', 'timestamp', 'details']);

/**
 * Appends an event. Audit rows are never updated or deleted by the service. Details are written storable (a lone
 * surrogate or NUL becomes U+FFFD): an event about input the service took as given (an unknown MCP tool's name, a
 * vendor's error text) is recorded, not lost to jsonb refusing it.
 */
export async function recordAudit(db: Queryable, e: AuditInput): Promise<string> {
  const id = newId('evt');
  await db.query(
    `INSERT INTO audit_events (id, tenant_id, action, actor_id, user_id, occurred_at, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, e.tenantId, e.action, e.actorId ?? null, e.userId ?? null, (e.at ?? new Date()).toISOString(), storableJson(e.details ?? {})],
  );
  return id;
}

/** Appends an event `actor` did (its tenant, id and person or key name), as `recordAudit`. */
export function recordAuditBy(db: Queryable, actor: AuditActor, action: string, details: Record<string, unknown>, at?: Date): Promise<string> {
  return recordAudit(db, { tenantId: actor.tenantId, action, actorId: actor.id, userId: actor.userId, details, ...(at ? { at } : {}) });
}

const AUDIT_COLUMNS = ['id', 'tenant_id', 'action', 'actor_id', 'user_id', 'occurred_at', 'details'] as const;

/**
 * Appends an event without waiting for the write, for hot paths (one event per federated query): it is
 * queued at once and written in a batch with other deferred rows; `queryAudit` and `flushAudit` wait for it.
 */
export function recordAuditDeferred(db: Queryable, e: AuditInput, onError?: (err: unknown, lost: number) => void): string {
  const id = newId('evt');
  deferInsert(
    db,
    {
      table: 'audit_events',
      columns: AUDIT_COLUMNS,
      values: [id, e.tenantId, e.action, e.actorId ?? null, e.userId ?? null, (e.at ?? new Date()).toISOString(), storableJson(e.details ?? {})],
    },
    onError,
  );
  return id;
}

/** Waits until every deferred write of this database (audit events among them) is done. */
export async function flushAudit(db: Queryable): Promise<void> {
  await drainDeferred(db);
}

export interface AuditQuery {
  readonly tenantId: string;
  /** Exact action, or a prefix ending in `*` (`auth.sso*`, `apikey*`). */
  readonly action?: string;
  readonly since?: Date;
  readonly until?: Date;
  /** Opaque cursor from a previous page (`next_cursor`). */
  readonly cursor?: string;
  readonly limit: number;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Newest first, paged by `seq`. */
export async function queryAudit(db: Queryable, q: AuditQuery): Promise<{ events: AuditEvent[]; next_cursor: string | null }> {
  await flushAudit(db);
  const where = ['tenant_id = $1'];
  const params: unknown[] = [q.tenantId];
  if (q.action) {
    if (q.action.endsWith('*')) {
      params.push(`${escapeLike(q.action.slice(0, -1))}%`);
      where.push(`action LIKE $${params.length}`);
    } else {
      params.push(q.action);
      where.push(`action = $${params.length}`);
    }
  }
  if (q.since) {
    params.push(q.since.toISOString());
    where.push(`occurred_at >= $${params.length}`);
  }
  if (q.until) {
    params.push(q.until.toISOString());
    where.push(`occurred_at < $${params.length}`);
  }
  if (q.cursor) {
    params.push(Number(q.cursor));
    where.push(`seq < $${params.length}`);
  }
  params.push(q.limit + 1);
  const r = await db.query<Record<string, unknown>>(
    `SELECT id, seq, tenant_id, action, actor_id, user_id, occurred_at, details FROM audit_events
     WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  const rows = r.rows.slice(0, q.limit);
  const events = rows.map((row) => {
    const details = (row.details ?? {}) as Record<string, unknown>;
    const spread = Object.fromEntries(Object.entries(details).filter(([k]) => !RESERVED.has(k)));
    return {
      ...spread,
      id: String(row.id),
      event_type: String(row.action),
      action: String(row.action),
      tenant_id: String(row.tenant_id),
      actor_id: (row.actor_id as string | null) ?? null,
      user_id: (row.user_id as string | null) ?? null,
      timestamp: new Date(row.occurred_at as string | Date).toISOString(),
      details,
    } satisfies AuditEvent;
  });
  const last = rows[rows.length - 1];
  return { events, next_cursor: r.rows.length > q.limit && last ? String(last.seq) : null };
}
