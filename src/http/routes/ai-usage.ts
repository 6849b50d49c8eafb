import { z } from 'zod';
import {
  aiUsagePolicySchema,
  FINDING_RULES,
  getPolicy,
  listFindings,
  replacePolicy,
  queryUsage,
  USAGE_DIMENSIONS,
  type UsageDimension,
  usageCsv,
} from '../../ai-usage/index.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const TAGS = ['ai-usage'];
/** A filter value: repeat the parameter for any of several (`?model=a&model=b`); each value is matched exactly. */
const values = (what: string) =>
  z
    .union([z.string().trim().min(1).max(512), z.array(z.string().trim().min(1).max(512)).max(100)])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional()
    .describe(`${what}; repeat the parameter for any of several`);
const day = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'a YYYY-MM-DD day')
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'a real calendar day')
    .optional()
    .describe(`${what} (UTC, inclusive)`);

const groupBy = z
  .string()
  .max(200)
  .optional()
  .transform((s, ctx) => {
    const parts = [...new Set((s ?? '').split(',').map((x) => x.trim()).filter(Boolean))];
    const bad = parts.filter((p) => !(USAGE_DIMENSIONS as readonly string[]).includes(p));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown group key ${bad.map((b) => `'${b}'`).join(', ')}: use ${USAGE_DIMENSIONS.join(', ')}` });
      return z.NEVER;
    }
    return parts as UsageDimension[];
  })
  .describe(`comma list of ${USAGE_DIMENSIONS.join(', ')}; none = one row of everything`);

const sums = { requests: z.number(), input_tokens: z.number(), output_tokens: z.number(), cost_usd: z.number() };
const usageRow = z.object({ ...Object.fromEntries(USAGE_DIMENSIONS.map((d) => [d, z.string().nullable().optional()])), ...sums });
const finding = z.object({
  finding_id: z.string(),
  rule: z.enum(FINDING_RULES),
  provider: z.string(),
  subject: z.string().describe('the user, key, model, project or provider; for a spike its day (and `api_key=<key>` for a key)'),
  details: z.record(z.string(), z.unknown()),
  first_seen: z.string().nullable().describe('YYYY-MM-DD: the first day the subject was used, or the spike’s day'),
  detected_at: z.string(),
});
const policyAnswer = aiUsagePolicySchema.extend({ updated_at: z.string().nullable() });

/** The AI-usage view (docs/ai-usage.md): usage and cost of the llm_providers connectors, findings, the policy. */
// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function aiUsageRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/ai-usage',
    {
      config: { permission: 'ai_usage:read' },
      schema: {
        summary: 'AI-provider usage and spend, filtered and grouped; `format=csv` (or Accept: text/csv) exports it',
        description:
          'Sums requests, input/output tokens and cost (USD) of the stored usage buckets per group. Rows are ordered by day ascending when grouped by day (then spend descending), else by spend descending. `totals` sums every matching bucket; `truncated` says more groups matched than `limit`.',
        tags: TAGS,
        produces: ['application/json', 'text/csv'],
        querystring: z
          .object({
            provider: values('provider (connector type: openai, anthropic, …)'),
            user: values('user (email or the provider’s user id)'),
            model: values('model'),
            api_key: values('API key id or redacted form'),
            project: values('project'),
            workspace: values('organization / workspace'),
            kind: z.enum(['usage', 'cost']).optional().describe('usage buckets (tokens, requests) or cost buckets (spend) only'),
            from: day('first day'),
            to: day('last day'),
            group_by: groupBy,
            limit: z.coerce.number().int().min(1).max(50_000).default(1000).describe('at most this many rows (groups)'),
            format: z.enum(['json', 'csv']).optional().describe('csv: a file with a header row; default json (or csv when Accept asks for text/csv)'),
          })
          .strict(),
        response: { 200: z.object({ rows: z.array(usageRow), totals: z.object(sums), truncated: z.boolean() }) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (q.from && q.to && q.from > q.to) throw Errors.validation(`from (${q.from}) is after to (${q.to})`, [{ path: 'querystring.from', message: 'on or before to' }]);
      const groupBy = q.group_by ?? [];
      const answer = await queryUsage(deps.db, {
        tenantId: principalOf(request).tenantId,
        filters: { provider: q.provider, user: q.user, model: q.model, api_key: q.api_key, project: q.project, workspace: q.workspace },
        kind: q.kind,
        from: q.from,
        to: q.to,
        groupBy,
        limit: q.limit,
      });
      const csv = q.format === 'csv' || (q.format === undefined && /\btext\/csv\b/i.test(request.headers.accept ?? ''));
      if (!csv) return answer;
      const name = `ai-usage${q.from ? `-${q.from}` : ''}${q.to ? `-to-${q.to}` : ''}.csv`;
      // A string payload is sent as it is (the JSON schema above describes the json format only).
      const body: unknown = usageCsv(groupBy, answer.rows);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(body as typeof answer);
    },
  );

  app.get(
    '/v1/ai-usage/findings',
    {
      config: { permission: 'ai_usage:read' },
      schema: {
        summary: 'AI-usage findings (new users, keys and models, unsanctioned use, spend and token spikes), newest first',
        tags: TAGS,
        querystring: z
          .object({
            rule: z
              .union([z.enum(FINDING_RULES), z.array(z.enum(FINDING_RULES)).max(20)])
              .transform((v) => (Array.isArray(v) ? v : [v]))
              .optional()
              .describe('only these rules; repeat for several'),
            provider: values('provider'),
            since: z
              .string()
              .max(40)
              .refine((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'an ISO 8601 date or date-time')
              .optional()
              .describe('only findings detected at or after this date or instant (ISO 8601)'),
            limit: z.coerce.number().int().min(1).max(5000).default(500),
          })
          .strict(),
        response: { 200: z.object({ findings: z.array(finding) }) },
      },
    },
    async (request) => {
      const q = request.query;
      const findings = await listFindings(deps.db, {
        tenantId: principalOf(request).tenantId,
        rules: q.rule,
        providers: q.provider,
        since: q.since ? new Date(q.since) : undefined,
        limit: q.limit,
      });
      return { findings };
    },
  );

  app.get(
    '/v1/ai-usage/policy',
    {
      config: { permission: 'ai_usage:read' },
      schema: {
        summary: 'The tenant’s AI-usage policy: allow-lists of sanctioned providers, models, projects and keys, and the spike thresholds',
        tags: TAGS,
        response: { 200: policyAnswer },
      },
    },
    async (request) => getPolicy(deps.db, principalOf(request).tenantId),
  );

  app.put(
    '/v1/ai-usage/policy',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Replace the tenant’s AI-usage policy; findings under the new policy are computed at once',
        description: 'Omitted fields take their defaults (empty allow-lists, spike_factor 3, min_baseline_days 7). Findings already recorded stay.',
        tags: TAGS,
        body: aiUsagePolicySchema,
        response: { 200: policyAnswer.extend({ new_findings: z.number().int().describe('findings the new policy raised now') }) },
      },
    },
    async (request) => replacePolicy(deps.db, principalOf(request), request.body),
  );
}
