import { AI_USAGE_GROUP } from '../access/index.ts';
import { aiUsageSynced, upsertUsage } from '../ai-usage/index.ts';
import { getKind } from '../connectors/catalog.ts';
import type { DocumentStore } from '../connectors/deps.ts';
import type { SourceDocument } from '../connectors/kit/contract.ts';
import { forgetConnectorIdentities, replaceGroupMembers, upsertAccounts } from '../identity/index.ts';
import { type DocumentsDeps, deleteConnectorDocuments, deleteDocuments, listExternalIds, listStoredDocuments, upsertDocuments, withoutNul } from '../documents/index.ts';

/** What every document of an `llm_providers` connector is stored with, whatever the kind wrote (docs/ai-usage.md). */
const AI_USAGE_ACL = { groups: [AI_USAGE_GROUP] } as const;

/** Adapts the documents module to the connectors' DocumentStore port. `deps` is read lazily (composed later). */
export function documentStoreFor(deps: () => DocumentsDeps): DocumentStore {
  // A connector's type never changes: looked up once per connector.
  const sensitive = new Map<string, boolean>();
  const isAiProvider = async (tenantId: string, connectorId: string): Promise<boolean> => {
    const known = sensitive.get(connectorId);
    if (known !== undefined) return known;
    const r = await deps().db.query<{ connector_type: string }>('SELECT connector_type FROM connectors WHERE tenant_id = $1 AND id = $2', [tenantId, connectorId]);
    const type = r.rows[0]?.connector_type;
    const yes = type !== undefined && getKind(type)?.group === 'llm_providers';
    if (type !== undefined) sensitive.set(connectorId, yes);
    return yes;
  };
  return {
    async upsert(input) {
      // AI-provider documents (usage, audit events, conversations) are readable only with ai_usage:read or admin:
      // enforced here for every kind of the group, not by each kind.
      const forced = await isAiProvider(input.tenantId, input.connectorId);
      const documents = input.documents.map((d): SourceDocument => withoutNul(forced ? { ...d, acl: AI_USAGE_ACL } : d));
      const r = await upsertDocuments(deps(), { ...input, documents, requireSource: true });
      return { added: r.added, updated: r.updated, unchanged: r.unchanged };
    },
    async remove(input) {
      return (await deleteDocuments(deps(), input)).deleted;
    },
    async removeAll(input) {
      const deleted = (await deleteConnectorDocuments(deps(), input)).deleted;
      // Only on the connector's deletion: its vendor accounts and memberships grant nothing any more. (Its ai_usage
      // rows go with the connector row: ON DELETE CASCADE, migration 062.)
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
    usage: (input) => upsertUsage(deps().db, input),
    usageSynced: ({ tenantId, connectorId }) => aiUsageSynced(deps().db, { tenantId, connectorId }),
  };
}
