import type { Queryable } from '../platform/db/index.ts';

/** After a completed sync of an `llm_providers` connector: computes the AI-usage findings (next commit). */
export async function aiUsageSynced(_db: Queryable, _input: { tenantId: string; connectorId: string }): Promise<void> {}
