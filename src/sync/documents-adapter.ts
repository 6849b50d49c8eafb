import type { DocumentStore } from '../connectors/deps.ts';
import { type DocumentsDeps, deleteConnectorDocuments, deleteDocuments, listExternalIds, listStoredDocuments, upsertDocuments, withoutNul } from '../documents/index.ts';

/** Adapts the documents module to the connectors' DocumentStore port. `deps` is read lazily (composed later). */
export function documentStoreFor(deps: () => DocumentsDeps): DocumentStore {
  return {
    async upsert(input) {
      const r = await upsertDocuments(deps(), { ...input, documents: input.documents.map(withoutNul), requireSource: true });
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
