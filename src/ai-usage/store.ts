import { z } from 'zod';
import type { UsageRecord } from '../connectors/kit/contract.ts';
import type { Queryable } from '../platform/db/index.ts';
import { storableJson } from '../platform/errors.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const BATCH = 500;

const count = z
  .number()
  .finite()
  .nonnegative()
  .transform((n) => Math.round(n));
const text = z
  .string()
  .trim()
  .max(512)
  .nullish()
  .transform((s) => (s ? s.replaceAll('\u0000', '') : null));

/** A UsageRecord as a kind returns it, checked before it is stored (a bad bucket fails the sync with a sentence). */
export const usageRecordSchema = z.object({
  record_id: z.string().min(1).max(1024),
  kind: z.enum(['usage', 'cost']),
  day: z
    .string()
    .regex(DAY, 'a YYYY-MM-DD day')
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'a real calendar day'),
  workspace: text,
  project: text,
  user: text,
  api_key: text,
  model: text,
  requests: count.optional().default(0),
  input_tokens: count.optional().default(0),
  output_tokens: count.optional().default(0),
  cost_usd: z.number().finite().optional().default(0),
  metadata: z.record(z.string(), z.unknown()).optional().default({}),
});

/**
 * Stores a page's usage buckets for a connector: one row per `record_id`, an existing row replaced (a re-read bucket
 * or a resumed sync never counts twice). `provider` is the connector's connector_type. Returns the rows written.
 */
export async function upsertUsage(
  db: Queryable,
  input: { tenantId: string; connectorId: string; provider: string; records: readonly UsageRecord[] },
): Promise<number> {
  // The same bucket twice on one page: the last one wins (one statement cannot update a row twice).
  const byId = new Map<string, z.infer<typeof usageRecordSchema>>();
  for (const r of input.records) {
    const parsed = usageRecordSchema.parse(r);
    byId.set(parsed.record_id, parsed);
  }
  const rows = [...byId.values()];
  for (let i = 0; i < rows.length; i += BATCH) {
    const params: unknown[] = [input.tenantId, input.connectorId, input.provider];
    const values = rows.slice(i, i + BATCH).map((r) => {
      const at = params.length;
      params.push(r.record_id, r.kind, r.day, r.workspace, r.project, r.user, r.api_key, r.model, r.requests, r.input_tokens, r.output_tokens, r.cost_usd, storableJson(r.metadata));
      const p = (n: number) => `$${at + n}`;
      return `($1, $2, $3, ${p(1)}, ${p(2)}, ${p(3)}::date, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}::bigint, ${p(10)}::bigint, ${p(11)}::bigint, ${p(12)}::numeric, ${p(13)}::jsonb, now())`;
    });
    await db.query(
      `INSERT INTO ai_usage (tenant_id, connector_id, provider, record_id, kind, day, workspace, project, "user", api_key, model,
                             requests, input_tokens, output_tokens, cost_usd, metadata, updated_at)
       VALUES ${values.join(', ')}
       ON CONFLICT (tenant_id, connector_id, record_id) DO UPDATE SET
         provider = EXCLUDED.provider, kind = EXCLUDED.kind, day = EXCLUDED.day, workspace = EXCLUDED.workspace,
         project = EXCLUDED.project, "user" = EXCLUDED."user", api_key = EXCLUDED.api_key, model = EXCLUDED.model,
         requests = EXCLUDED.requests, input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
         cost_usd = EXCLUDED.cost_usd, metadata = EXCLUDED.metadata, updated_at = now()`,
      params,
    );
  }
  return rows.length;
}
