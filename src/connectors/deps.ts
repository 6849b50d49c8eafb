import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseExecutor, Queryable } from '../platform/db/index.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { SourceDocument, SourceIdentities, StoredRef, UsageRecord } from './kit/contract.ts';

/**
 * The port through which connectors and sync write documents. The runtime adapts the documents module
 * (upsertDocuments / deleteDocuments / deleteConnectorDocuments / listExternalIds) to it.
 */
export interface DocumentStore {
  /** `onlyNewer`: a stored document updated later than the incoming one is kept (late or replayed webhook events). */
  upsert(input: { tenantId: string; connectorId: string; documents: readonly SourceDocument[]; onlyNewer?: boolean }): Promise<{ added: number; updated: number; unchanged: number }>;
  remove(input: { tenantId: string; connectorId: string; externalIds: readonly string[] }): Promise<number>;
  /** Every document of the connector; `thenInTx` runs in the same transaction (the connector row's deletion). */
  removeAll(input: { tenantId: string; connectorId: string; thenInTx?: (tx: Queryable) => Promise<unknown> }): Promise<number>;
  listExternalIds(tenantId: string, connectorId: string): Promise<string[]>;
  /** Stored documents whose external id starts with `prefix`, with their metadata. */
  listStored(tenantId: string, connectorId: string, prefix: string): Promise<StoredRef[]>;
  /** Records vendor accounts and whole group member lists for the identity directory (ACL principals). */
  identities?(input: { tenantId: string; connectorId: string; identities: SourceIdentities }): Promise<void>;
  /** Stores AI-provider usage buckets (`ai_usage`, docs/ai-usage.md), one row per record_id (re-reads replace). */
  usage?(input: { tenantId: string; connectorId: string; provider: string; records: readonly UsageRecord[] }): Promise<number>;
  /** After a completed sync of an `llm_providers` connector: the AI-usage findings (idempotent). */
  usageSynced?(input: { tenantId: string; connectorId: string }): Promise<void>;
}

/** What connector services need; AppDeps satisfies it structurally. */
export interface ConnectorDeps {
  readonly config: Config;
  readonly db: DatabaseExecutor;
  readonly log: Logger;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly connectorDocuments?: DocumentStore;
}
