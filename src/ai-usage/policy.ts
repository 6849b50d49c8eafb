import { z } from 'zod';
import type { Queryable } from '../platform/db/index.ts';

const entry = z.string().trim().min(1).max(512);
const list = (what: string) =>
  z
    .array(entry)
    .max(1000)
    .default([])
    .describe(`${what}; empty = any is sanctioned. Matched case-insensitively; a trailing \`*\` matches any ending (\`gpt-4.1*\`).`);

/** The tenant's AI-usage policy (docs/ai-usage.md): the allow-list and the spike thresholds. */
export const aiUsagePolicySchema = z
  .object({
    allowed_providers: list('sanctioned providers (connector types: openai, anthropic, …)'),
    allowed_models: list('sanctioned models'),
    allowed_projects: list('sanctioned projects (as the provider names them: id or name)'),
    allowed_api_keys: list("sanctioned API keys (the provider's key id or redacted form)"),
    spike_factor: z.number().min(1).max(1000).default(3).describe("a day over this many times the trailing 14-day median is a spike"),
    min_baseline_days: z.number().int().min(1).max(365).default(7).describe('days of history a series needs before a spike is judged'),
  })
  .strict();
export type AiUsagePolicy = z.infer<typeof aiUsagePolicySchema>;

export const DEFAULT_POLICY: AiUsagePolicy = aiUsagePolicySchema.parse({});

export async function getPolicy(db: Queryable, tenantId: string): Promise<AiUsagePolicy & { updated_at: string | null }> {
  const r = await db.query<{ policy: unknown; updated_at: Date | string }>('SELECT policy, updated_at FROM ai_usage_policy WHERE tenant_id = $1', [tenantId]);
  const row = r.rows[0];
  if (!row) return { ...DEFAULT_POLICY, updated_at: null };
  // A stored policy from an older shape: what still parses, over the defaults.
  const parsed = aiUsagePolicySchema.safeParse(row.policy);
  return { ...(parsed.success ? parsed.data : DEFAULT_POLICY), updated_at: new Date(row.updated_at).toISOString() };
}

export async function putPolicy(db: Queryable, tenantId: string, policy: AiUsagePolicy, actor: string | null): Promise<void> {
  await db.query(
    `INSERT INTO ai_usage_policy (tenant_id, policy, updated_by, updated_at) VALUES ($1, $2::jsonb, $3, now())
     ON CONFLICT (tenant_id) DO UPDATE SET policy = EXCLUDED.policy, updated_by = EXCLUDED.updated_by, updated_at = now()`,
    [tenantId, JSON.stringify(policy), actor],
  );
}

/** Whether `value` is sanctioned by `allowed` (empty = everything is). */
export function sanctioned(allowed: readonly string[], value: string): boolean {
  if (allowed.length === 0) return true;
  const v = value.toLowerCase();
  return allowed.some((a) => {
    const x = a.toLowerCase();
    return x.endsWith('*') ? v.startsWith(x.slice(0, -1)) : v === x;
  });
}
