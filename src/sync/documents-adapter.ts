import type { DocumentStore } from '../connectors/deps.ts';
import { forgetConnectorIdentities, replaceGroupMembers, upsertAccounts } from '../identity/index.ts';
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
      const deleted = (await deleteConnectorDocuments(deps(), input)).deleted;
      // Only on the connector's deletion: its vendor accounts and memberships grant nothing any more.
      await forgetConnectorIdentities(deps().db, input.tenantId, input.connectorId);
      return deleted;
    },
    listExternalIds: (tenantId, connectorId) => listExternalIds(deps().db, tenantId, connectorId),
    listStored: (tenantId, connectorId, prefix) => listStoredDocuments(deps().db, tenantId, connectorId, prefix),
    async identities({ tenantId, connectorId, identities }) {
      const { db } = deps();
      await upsertAccounts(db, tenantId, connectorId, identities.accounts ?? []);
      await replaceGroupMembers(db, tenantId, connectorId, identities.groups ?? []);
    },
  };
}
