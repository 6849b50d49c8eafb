import { aclCondition, type Viewer } from '../documents/acl.ts';
import type { Queryable } from '../platform/db/executor.ts';
import type { ConnectorListItem } from './schemas.ts';
import { type ConnectorEvent, type ConnectorState, isConnectorState, nextState } from './states.ts';


/** A connector row as the domain sees it. Sealed secrets stay sealed here; only the sync engine opens them. */
export interface ConnectorRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly type: string;
  readonly displayName: string;
  readonly status: ConnectorState;
  readonly statusReason: string | null;
  readonly pausedFrom: ConnectorState | null;
  readonly settings: Record<string, unknown>;
  readonly credentialsEnc: string | null;
  readonly oauthTokensEnc: string | null;
  readonly tokenExpiresAt: Date | null;
  readonly webhookSecretEnc: string | null;
  readonly syncCursor: unknown;
  readonly lastSyncAt: Date | null;
  readonly lastError: string | null;
  readonly nextIncrementalAt: Date | null;
  readonly nextFullAt: Date | null;
  readonly rateLimitedUntil: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const date = (v: unknown): Date | null => (v ? new Date(v as string) : null);
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function rowToConnector(r: Record<string, unknown>): ConnectorRecord {
  const status = String(r.status);
  const pausedFrom = str(r.paused_from);
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    type: String(r.connector_type),
    displayName: String(r.display_name),
    status: isConnectorState(status) ? status : 'error',
    statusReason: str(r.status_reason),
    pausedFrom: pausedFrom && isConnectorState(pausedFrom) ? pausedFrom : null,
    settings: (r.settings ?? {}) as Record<string, unknown>,
    credentialsEnc: str(r.credentials_enc),
    oauthTokensEnc: str(r.oauth_tokens_enc),
    tokenExpiresAt: date(r.token_expires_at),
    webhookSecretEnc: str(r.webhook_secret_enc),
    syncCursor: r.sync_cursor ?? null,
    lastSyncAt: date(r.last_sync_at),
    lastError: str(r.last_error),
    nextIncrementalAt: date(r.next_incremental_at),
    nextFullAt: date(r.next_full_at),
    rateLimitedUntil: date(r.rate_limited_until),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

/**
 * The connector's documents `viewer` may read, counted in SQL with retrieval's own ACL condition: a count never
 * reveals documents the caller cannot read (docs/permissions.md). An admin's audited bypass counts every one.
 */
function docCount(viewer: Viewer, add: (v: unknown) => string): string {
  const acl = aclCondition(viewer, add);
  return `(SELECT count(*) FROM documents d WHERE d.tenant_id = c.tenant_id AND d.source_node = c.id${acl ? ` AND ${acl}` : ''})::int`;
}

/** Parameter list for one statement: `add(v)` appends v and answers its placeholder. */
function params(first: unknown[]): { values: unknown[]; add: (v: unknown) => string } {
  const values = [...first];
  return { values, add: (v) => `$${values.push(v)}` };
}

export async function listConnectors(db: Queryable, tenantId: string, viewer: Viewer): Promise<ConnectorListItem[]> {
  const p = params([tenantId]);
  const r = await db.query<Record<string, unknown>>(
    `SELECT c.id, c.connector_type, c.display_name, c.status, c.last_sync_at, ${docCount(viewer, p.add)} AS document_count
     FROM connectors c WHERE c.tenant_id = $1 ORDER BY c.created_at, c.id`,
    p.values,
  );
  return r.rows.map((row) => ({
    connector_id: String(row.id),
    connector_type: String(row.connector_type),
    display_name: String(row.display_name),
    status: String(row.status),
    last_sync_at: row.last_sync_at ? new Date(row.last_sync_at as string).toISOString() : null,
    document_count: Number(row.document_count),
  }));
}

/** How many of the connector's documents `viewer` may read. */
export async function countConnectorDocuments(db: Queryable, tenantId: string, connectorId: string, viewer: Viewer): Promise<number> {
  const p = params([tenantId, connectorId]);
  const r = await db.query<{ n: number }>(`SELECT ${docCount(viewer, p.add)} AS n FROM connectors c WHERE c.tenant_id = $1 AND c.id = $2`, p.values);
  return Number(r.rows[0]?.n ?? 0);
}

export interface NewConnector {
  readonly id: string;
  readonly tenantId: string;
  readonly type: string;
  readonly displayName: string;
  readonly settings: Record<string, unknown>;
  readonly credentialsEnc: string | null;
  readonly webhookSecretEnc?: string | null;
  readonly nextIncrementalAt: Date | null;
  readonly nextFullAt: Date | null;
}

/** Inserts a connector in `connecting`, the only initial state. */
export async function insertConnector(db: Queryable, c: NewConnector): Promise<ConnectorRecord> {
  const r = await db.query(
    `INSERT INTO connectors (id, tenant_id, connector_type, display_name, status, settings, credentials_enc, webhook_secret_enc,
       next_incremental_at, next_full_at)
     VALUES ($1, $2, $3, $4, 'connecting', $5, $6, $7, $8, $9) RETURNING *`,
    [
      c.id,
      c.tenantId,
      c.type,
      c.displayName,
      JSON.stringify(c.settings),
      c.credentialsEnc,
      c.webhookSecretEnc ?? null,
      c.nextIncrementalAt?.toISOString() ?? null,
      c.nextFullAt?.toISOString() ?? null,
    ],
  );
  const row = r.rows[0];
  if (!row) throw new Error('connector insert returned no row');
  return rowToConnector(row);
}

/**
 * Creates an `idle` source named by its id unless the id exists (then only `updated_at` moves); answers the row's
 * type, settings and tenant either way, so the caller can refuse an id taken by another tenant or type.
 */
export async function insertIdleSource(
  db: Queryable,
  c: { id: string; tenantId: string; type: string; settings: Record<string, unknown> },
): Promise<{ connector_type: string; settings: Record<string, unknown>; tenant_id: string } | undefined> {
  const r = await db.query<{ connector_type: string; settings: Record<string, unknown>; tenant_id: string }>(
    `INSERT INTO connectors (id, tenant_id, connector_type, display_name, status, settings)
     VALUES ($1, $2, $3, $1, 'idle', $4::jsonb)
     ON CONFLICT (id) DO UPDATE SET updated_at = now()
     RETURNING connector_type, settings, tenant_id`,
    [c.id, c.tenantId, c.type, JSON.stringify(c.settings)],
  );
  return r.rows[0];
}

export async function getConnector(db: Queryable, tenantId: string, id: string): Promise<ConnectorRecord | null> {
  const r = await db.query('SELECT * FROM connectors WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return r.rows[0] ? rowToConnector(r.rows[0]) : null;
}

export async function deleteConnectorRow(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM connectors WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return r.affectedRows > 0;
}

/** Columns a transition may set alongside the status (never the status itself). */
export interface TransitionFields {
  readonly reason?: string | null;
  readonly lastError?: string | null;
  readonly lastSyncAt?: Date;
  readonly rateLimitedUntil?: Date | null;
}

export type TransitionResult =
  | { ok: true; from: ConnectorState; to: ConnectorState }
  | { ok: false; current: ConnectorState | null; reason: string };

/**
 * Events after which the connector's credentials are known to work: the failure `last_error` recorded (e.g. the
 * vendor rejecting the credentials that were then replaced) is over, so it is cleared unless the caller sets one.
 */
const CLEARS_LAST_ERROR: ReadonlySet<ConnectorEvent> = new Set(['credentials_valid', 'oauth_completed']);

/**
 * The only writer of `connectors.status`. Computes the next state from the table in states.ts and
 * updates with a compare-and-set on the current status, so concurrent writers cannot slip past the table.
 */
export async function applyTransition(
  db: Queryable,
  tenantId: string,
  id: string,
  event: ConnectorEvent,
  fields: TransitionFields = {},
): Promise<TransitionResult> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await getConnector(db, tenantId, id);
    if (!current) return { ok: false, current: null, reason: `connector '${id}' not found` };
    const outcome = nextState(current.status, event, current.pausedFrom);
    if (!outcome.ok) return { ok: false, current: current.status, reason: outcome.reason };
    const sets = ['status = $4', 'updated_at = now()'];
    const params: unknown[] = [tenantId, id, current.status, outcome.to];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (event === 'pause') set('paused_from', current.status);
    if (event === 'resume') set('paused_from', null);
    if (fields.reason !== undefined) set('status_reason', fields.reason);
    else set('status_reason', null);
    if (fields.lastError !== undefined) set('last_error', fields.lastError);
    else if (CLEARS_LAST_ERROR.has(event)) set('last_error', null);
    if (fields.lastSyncAt !== undefined) set('last_sync_at', fields.lastSyncAt.toISOString());
    if (fields.rateLimitedUntil !== undefined) set('rate_limited_until', fields.rateLimitedUntil?.toISOString() ?? null);
    const r = await db.query(`UPDATE connectors SET ${sets.join(', ')} WHERE tenant_id = $1 AND id = $2 AND status = $3`, params);
    if (r.affectedRows === 1) return { ok: true, from: current.status, to: outcome.to };
  }
  return { ok: false, current: null, reason: 'the connector changed state concurrently; try again' };
}

export async function updateConnectorFields(
  db: Queryable,
  tenantId: string,
  id: string,
  fields: {
    syncCursor?: unknown;
    oauthTokensEnc?: string | null;
    tokenExpiresAt?: Date | null;
    webhookSecretEnc?: string | null;
    credentialsEnc?: string | null;
    nextIncrementalAt?: Date | null;
    nextFullAt?: Date | null;
    settings?: Record<string, unknown>;
    displayName?: string;
  },
): Promise<void> {
  const sets = ['updated_at = now()'];
  const params: unknown[] = [tenantId, id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (fields.syncCursor !== undefined) set('sync_cursor', JSON.stringify(fields.syncCursor));
  if (fields.oauthTokensEnc !== undefined) set('oauth_tokens_enc', fields.oauthTokensEnc);
  if (fields.tokenExpiresAt !== undefined) set('token_expires_at', fields.tokenExpiresAt?.toISOString() ?? null);
  if (fields.webhookSecretEnc !== undefined) set('webhook_secret_enc', fields.webhookSecretEnc);
  if (fields.credentialsEnc !== undefined) set('credentials_enc', fields.credentialsEnc);
  if (fields.nextIncrementalAt !== undefined) set('next_incremental_at', fields.nextIncrementalAt?.toISOString() ?? null);
  if (fields.nextFullAt !== undefined) set('next_full_at', fields.nextFullAt?.toISOString() ?? null);
  if (fields.settings !== undefined) set('settings', JSON.stringify(fields.settings));
  if (fields.displayName !== undefined) set('display_name', fields.displayName);
  await db.query(`UPDATE connectors SET ${sets.join(', ')} WHERE tenant_id = $1 AND id = $2`, params);
}
