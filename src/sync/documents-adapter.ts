import type { DocumentStore } from '../connectors/deps.ts';
import { type DocumentsDeps, deleteConnectorDocuments, deleteDocuments, listExternalIds, listStoredDocuments, upsertDocuments } from '../documents/index.ts';

/**
 * A vendor's text may hold U+0000 (a pasted binary, a PDF title), which PostgreSQL text and jsonb cannot store:
 * one such document would fail its whole page, and the sync would retry it forever. Connectors' documents lose
 * those characters (pushed documents are refused instead, with the field named: the push caller can fix them).
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
  }
  return value;
}

/** Adapts the documents module to the connectors' DocumentStore port. `deps` is read lazily (composed later). */
export function documentStoreFor(deps: () => DocumentsDeps): DocumentStore {
  return {
    async upsert(input) {
      const r = await upsertDocuments(deps(), { ...input, documents: input.documents.map(withoutNul) });
      return { added: r.added, updated: r.updated, unchanged: r.unchanged };
    },
    async remove(input) {
      return (await deleteDocuments(deps(), input)).deleted;
    },
    async removeAll(input) {
      return (await deleteConnectorDocuments(deps(), input)).deleted;
    },
    listExternalIds: (tenantId, connectorId) => listExternalIds(deps().db, tenantId, connectorId),
    listStored: (tenantId, connectorId, prefix) => listStoredDocuments(deps().db, tenantId, connectorId, prefix),
  };
}
