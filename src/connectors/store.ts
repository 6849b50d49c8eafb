import type { Queryable } from '../platform/db/executor.ts';

export interface ConnectorListItem {
  readonly connector_id: string;
  readonly connector_type: string;
  readonly display_name: string;
  readonly status: string;
  readonly last_sync_at: string | null;
  readonly document_count: number;
}

export async function listConnectors(db: Queryable, tenantId: string): Promise<ConnectorListItem[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT c.id, c.connector_type, c.display_name, c.status, c.last_sync_at, 0 AS document_count
     FROM connectors c WHERE c.tenant_id = $1 ORDER BY c.created_at, c.id`,
    [tenantId],
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
