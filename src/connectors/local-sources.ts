import type { Queryable } from '../platform/db/index.ts';
import { parseSourceInput } from './service.ts';
import { getConnector, insertIdleSource } from './store.ts';

/**
 * Sources the CLI fills from this machine's files (`atrium ingest <file|folder>` with local storage): an `api`
 * source per JSONL/CSV file, a `filesystem` source per folder. They are created `idle` (nothing to validate),
 * and a folder's scan state is kept as the source's sync cursor, as the server's own syncs keep theirs.
 */

/** A source's settings (`{}` when it has none) and sync cursor, or undefined when the tenant has no such source. */
export async function localSourceState(db: Queryable, tenantId: string, id: string): Promise<{ settings: Record<string, unknown>; cursor: unknown } | undefined> {
  const c = await getConnector(db, tenantId, id);
  return c ? { settings: c.settings ?? {}, cursor: c.syncCursor } : undefined;
}

/**
 * Creates the source when missing (named by its id, `idle`, with `settings`) and returns its stored settings.
 * The type and settings are checked against the kind's schemas as `createConnector` checks them (400 naming the
 * field); the kind's `checkSettings` is not run: it limits what the server reads (ATRIUM_FILESYSTEM_ROOTS), and
 * here the CLI reads the operator's own files. Throws when the id is taken by another tenant's source or by one
 * of another type.
 */
export async function ensureLocalSource(db: Queryable, tenantId: string, id: string, type: string, settings: Record<string, unknown>): Promise<Record<string, unknown>> {
  const parsed = parseSourceInput({ connector_type: type, settings });
  const row = await insertIdleSource(db, { id, tenantId, type: parsed.kind.type, settings: parsed.settings });
  if (!row || row.tenant_id !== tenantId) throw new Error(`source '${id}' belongs to another tenant`);
  if (row.connector_type !== type) throw new Error(`source '${id}' is a '${row.connector_type}' connector, not '${type}'`);
  return row.settings ?? {};
}

/** Records the file a source was ingested from (`settings.ingested_from`), unless it already names one. */
export async function claimIngestedFrom(db: Queryable, tenantId: string, id: string, file: string): Promise<void> {
  await db.query(
    `UPDATE connectors SET settings = jsonb_set(coalesce(settings, '{}'::jsonb), '{ingested_from}', to_jsonb($3::text))
     WHERE tenant_id = $1 AND id = $2 AND NOT (coalesce(settings, '{}'::jsonb) ? 'ingested_from')`,
    [tenantId, id, file],
  );
}

/** Ends a local folder scan: its state becomes the sync cursor (an older CLI's `settings.scan_state` goes), and `last_sync_at` now. */
export async function completeLocalScan(db: Queryable, tenantId: string, id: string, state: unknown): Promise<void> {
  await db.query(
    `UPDATE connectors SET sync_cursor = $3::jsonb, settings = coalesce(settings, '{}'::jsonb) - 'scan_state', last_sync_at = now(), updated_at = now()
     WHERE tenant_id = $1 AND id = $2`,
    [tenantId, id, JSON.stringify(state)],
  );
}
