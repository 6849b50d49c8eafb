/** A forget request: one document, one source item (connector + external id), or a whole connector. */
export interface TombstoneRule {
  readonly id: string;
  readonly document_id: string | null;
  readonly connector_id: string | null;
  readonly external_id: string | null;
}

export interface TombstoneTarget {
  readonly document_id: string;
  readonly source_node: string;
  readonly external_id: string;
}

/**
 * Returns a matcher giving the tombstone that suppresses an item, or null. A tombstone matches by document
 * id, by (connector, external id) — so a re-synced copy of a forgotten item stays suppressed — or, with no
 * external id, every item of the connector.
 */
export function tombstoneMatcher(rules: readonly TombstoneRule[]): (t: TombstoneTarget) => string | null {
  const byDoc = new Map<string, string>();
  const byExternal = new Map<string, string>();
  const byConnector = new Map<string, string>();
  for (const r of rules) {
    if (r.document_id) byDoc.set(r.document_id, r.id);
    if (r.connector_id && r.external_id) byExternal.set(`${r.connector_id}\u0000${r.external_id}`, r.id);
    else if (r.connector_id && !r.document_id) byConnector.set(r.connector_id, r.id);
  }
  return (t) => byDoc.get(t.document_id) ?? byExternal.get(`${t.source_node}\u0000${t.external_id}`) ?? byConnector.get(t.source_node) ?? null;
}
