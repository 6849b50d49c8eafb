import type { Queryable } from '../platform/db/executor.ts';
import { newId } from '../platform/ids.ts';
import type { SecretBox } from '../platform/secrets.ts';

/** Another Atrium instance this tenant federates with, as the API shows it (never the key). */
export interface RemoteNode {
  readonly node_id: string;
  readonly name: string;
  readonly url: string;
  readonly created_at: string;
}

/** A remote node with its decrypted key, for the fan-out only. */
export interface RemoteNodeWithKey extends RemoteNode {
  readonly apiKey: string;
}

/** Remote node names prefix their items' source_node (`name/…`), so they stay simple. */
export const NODE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

function toNode(r: Record<string, unknown>): RemoteNode {
  return { node_id: String(r.id), name: String(r.name), url: String(r.url), created_at: new Date(r.created_at as string).toISOString() };
}

/** A node's URL as it is stored and called: without trailing slashes (paths are appended to it). */
export function nodeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Registers a remote node; the API key is sealed with the secret box. Null when the name is taken. */
export async function registerNode(
  db: Queryable,
  secrets: SecretBox,
  input: { tenantId: string; name: string; url: string; apiKey: string; createdBy: string; now: Date },
): Promise<RemoteNode | null> {
  const r = await db.query<Record<string, unknown>>(
    `INSERT INTO federation_nodes (id, tenant_id, name, url, api_key_enc, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, name) DO NOTHING RETURNING id, name, url, created_at`,
    [newId('node'), input.tenantId, input.name, nodeBaseUrl(input.url), secrets.seal(input.apiKey), input.createdBy, input.now.toISOString()],
  );
  return r.rows[0] ? toNode(r.rows[0]) : null;
}

export async function listNodes(db: Queryable, tenantId: string): Promise<RemoteNode[]> {
  const r = await db.query<Record<string, unknown>>('SELECT id, name, url, created_at FROM federation_nodes WHERE tenant_id = $1 ORDER BY name', [tenantId]);
  return r.rows.map(toNode);
}

export async function listNodesWithKeys(db: Queryable, secrets: SecretBox, tenantId: string): Promise<RemoteNodeWithKey[]> {
  const r = await db.query<Record<string, unknown>>('SELECT id, name, url, created_at, api_key_enc FROM federation_nodes WHERE tenant_id = $1 ORDER BY name', [
    tenantId,
  ]);
  return r.rows.map((row) => nodeWithKey(row, secrets));
}

/** A federation_nodes row (id, name, url, created_at, api_key_enc) with its key opened. */
export function nodeWithKey(row: Record<string, unknown>, secrets: SecretBox): RemoteNodeWithKey {
  return { ...toNode(row), apiKey: secrets.open(String(row.api_key_enc)) };
}

export async function deleteNode(db: Queryable, tenantId: string, idOrName: string): Promise<boolean> {
  const r = await db.query('DELETE FROM federation_nodes WHERE tenant_id = $1 AND (id = $2 OR name = $2)', [tenantId, idOrName]);
  return r.affectedRows > 0;
}
