import { type AuditActor, recordAudit, recordAuditBy } from '../audit/index.ts';
import type { DatabaseExecutor, Queryable } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { Ops } from '../platform/operations.ts';
import { type AiUsagePolicy, getPolicy, putPolicy, sanctioned } from './policy.ts';

/** Every finding rule (docs/ai-usage.md explains each). */
export const FINDING_RULES = [
  'new_user',
  'new_api_key',
  'new_model',
  'unsanctioned_provider',
  'unsanctioned_model',
  'unsanctioned_project',
  'unsanctioned_api_key',
  'spend_spike',
  'token_spike',
] as const;
export type FindingRule = (typeof FINDING_RULES)[number];

/** The trailing window a day is compared with. */
export const SPIKE_WINDOW_DAYS = 14;

export interface Finding {
  readonly finding_id: string;
  readonly rule: FindingRule;
  readonly provider: string;
  readonly subject: string;
  readonly details: Record<string, unknown>;
  /** The first day the subject was used (new_*, unsanctioned_*), or the spike's day. */
  readonly first_seen: string | null;
  readonly detected_at: string;
}

type Candidate = Omit<Finding, 'finding_id' | 'detected_at'>;

/**
 * Records a finding once: a (tenant, rule, provider, subject) already recorded changes nothing. A new one is written
 * with its `ai_usage.finding` audit event in one transaction. Returns whether it was new.
 */
async function record(db: DatabaseExecutor, tenantId: string, c: Candidate): Promise<boolean> {
  return db.transaction(async (tx) => {
    const id = newId('aif');
    const r = await tx.query<{ detected_at: Date | string }>(
      `INSERT INTO ai_usage_findings (finding_id, tenant_id, rule, provider, subject, details, first_seen)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::date)
       ON CONFLICT (tenant_id, rule, provider, subject) DO NOTHING RETURNING detected_at`,
      [id, tenantId, c.rule, c.provider, c.subject, JSON.stringify(c.details), c.first_seen],
    );
    if (r.rows.length === 0) return false;
    await recordAudit(tx, {
      tenantId,
      action: Ops.aiUsageFinding,
      details: { finding_id: id, rule: c.rule, provider: c.provider, subject: c.subject, first_seen: c.first_seen, since: c.first_seen, ...c.details },
    });
    return true;
  });
}

/**
 * New users, API keys and models of one connector. Its first completed sync is the baseline: everything it stored by
 * then (the initial backfill) is recorded as known and raises nothing; afterwards each value the connector shows for
 * the first time is a finding (first_seen = the first day it was used).
 */
async function newValues(db: DatabaseExecutor, tenantId: string, connectorId: string, provider: string): Promise<Candidate[]> {
  const first = await db.query('INSERT INTO ai_usage_baselines (tenant_id, connector_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1', [tenantId, connectorId]);
  const baseline = first.rows.length > 0;
  const r = await db.query<{ dimension: 'user' | 'api_key' | 'model'; value: string; first_day: string }>(
    `INSERT INTO ai_usage_seen (tenant_id, connector_id, provider, dimension, value, first_day, baseline)
     SELECT $1, $2, $3, dimension, value, min(day), $4 FROM (
       SELECT 'user' AS dimension, "user" AS value, day FROM ai_usage WHERE tenant_id = $1 AND connector_id = $2 AND "user" IS NOT NULL
       UNION ALL SELECT 'api_key', api_key, day FROM ai_usage WHERE tenant_id = $1 AND connector_id = $2 AND api_key IS NOT NULL
       UNION ALL SELECT 'model', model, day FROM ai_usage WHERE tenant_id = $1 AND connector_id = $2 AND model IS NOT NULL
     ) v GROUP BY dimension, value
     ON CONFLICT (tenant_id, connector_id, dimension, value) DO NOTHING
     RETURNING dimension, value, first_day::text AS first_day`,
    [tenantId, connectorId, provider, baseline],
  );
  if (baseline) return [];
  return r.rows
    .sort((a, b) => a.first_day.localeCompare(b.first_day) || a.value.localeCompare(b.value))
    .map((x) => ({
      rule: `new_${x.dimension}` as FindingRule,
      provider,
      subject: x.value,
      first_seen: x.first_day,
      details: { [x.dimension]: x.value, connector_id: connectorId, first_seen: x.first_day },
    }));
}

/** Providers, models, projects and keys in use outside a non-empty allow-list of the policy. */
async function unsanctioned(db: Queryable, tenantId: string, policy: AiUsagePolicy): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const checks = [
    { rule: 'unsanctioned_provider', column: 'provider', key: 'provider', allowed: policy.allowed_providers },
    { rule: 'unsanctioned_model', column: 'model', key: 'model', allowed: policy.allowed_models },
    { rule: 'unsanctioned_project', column: 'project', key: 'project', allowed: policy.allowed_projects },
    { rule: 'unsanctioned_api_key', column: 'api_key', key: 'api_key', allowed: policy.allowed_api_keys },
  ] as const;
  for (const c of checks) {
    if (c.allowed.length === 0) continue;
    const r = await db.query<{ provider: string; value: string; first_day: string; last_day: string }>(
      `SELECT provider, ${c.column} AS value, min(day)::text AS first_day, max(day)::text AS last_day FROM ai_usage
       WHERE tenant_id = $1 AND ${c.column} IS NOT NULL GROUP BY provider, ${c.column} ORDER BY 3, 1, 2`,
      [tenantId],
    );
    for (const x of r.rows) {
      if (sanctioned(c.allowed, x.value)) continue;
      out.push({ rule: c.rule, provider: x.provider, subject: x.value, first_seen: x.first_day, details: { [c.key]: x.value, first_seen: x.first_day, last_seen: x.last_day } });
    }
  }
  return out;
}

const DAY_MS = 86_400_000;
const dayNumber = (d: string) => Math.round(Date.parse(`${d}T00:00:00Z`) / DAY_MS);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

/**
 * The days of one series (a provider's, or one key's) over `factor` × the median of the trailing 14 days. Days before
 * the series' first day do not count; the days of the window without usage count as 0. A day is judged only once the
 * series has `minDays` days of history before it, and only against a median above 0.
 */
export function spikeDays(series: ReadonlyMap<string, number>, factor: number, minDays: number): { day: string; value: number; median: number; history_days: number }[] {
  const days = [...series.keys()].sort();
  const firstDay = days[0];
  if (firstDay === undefined) return [];
  const start = dayNumber(firstDay);
  const byNumber = new Map(days.map((d) => [dayNumber(d), series.get(d) ?? 0]));
  const out: { day: string; value: number; median: number; history_days: number }[] = [];
  for (const d of days) {
    const n = dayNumber(d);
    const history = n - start;
    if (history < minDays) continue;
    const window: number[] = [];
    for (let k = Math.max(start, n - SPIKE_WINDOW_DAYS); k < n; k++) window.push(byNumber.get(k) ?? 0);
    const m = median(window);
    const value = series.get(d) ?? 0;
    if (m > 0 && value > factor * m) out.push({ day: d, value, median: m, history_days: Math.min(history, SPIKE_WINDOW_DAYS) });
  }
  return out;
}

/** Spend and token spikes per provider, and per provider and API key. */
async function spikes(db: Queryable, tenantId: string, policy: AiUsagePolicy): Promise<Candidate[]> {
  const r = await db.query<{ provider: string; api_key: string | null; wide: number; day: string; cost: string; tokens: string }>(
    `SELECT provider, api_key, GROUPING(api_key)::int AS wide, day::text AS day, sum(cost_usd)::text AS cost,
            sum(input_tokens + output_tokens)::text AS tokens
     FROM ai_usage WHERE tenant_id = $1 GROUP BY GROUPING SETS ((provider, day), (provider, api_key, day))`,
    [tenantId],
  );
  const series = new Map<string, { provider: string; apiKey: string | null; cost: Map<string, number>; tokens: Map<string, number> }>();
  for (const x of r.rows) {
    // wide = 1: the provider's whole day; else one key's day (buckets without a key form no key series).
    const apiKey = Number(x.wide) === 1 ? null : x.api_key;
    if (Number(x.wide) !== 1 && apiKey === null) continue;
    const id = `${x.provider}\u0001${apiKey ?? ''}`;
    const s = series.get(id) ?? { provider: x.provider, apiKey, cost: new Map(), tokens: new Map() };
    series.set(id, s);
    s.cost.set(x.day, Number(x.cost));
    s.tokens.set(x.day, Number(x.tokens));
  }
  const out: Candidate[] = [];
  for (const s of [...series.values()].sort((a, b) => a.provider.localeCompare(b.provider) || (a.apiKey ?? '').localeCompare(b.apiKey ?? ''))) {
    for (const [rule, values, unit] of [
      ['spend_spike', s.cost, 'cost_usd'],
      ['token_spike', s.tokens, 'tokens'],
    ] as const) {
      for (const x of spikeDays(values, policy.spike_factor, policy.min_baseline_days)) {
        out.push({
          rule,
          provider: s.provider,
          subject: s.apiKey === null ? x.day : `${x.day} api_key=${s.apiKey}`,
          first_seen: x.day,
          details: {
            day: x.day,
            scope: s.apiKey === null ? 'provider' : 'api_key',
            ...(s.apiKey === null ? {} : { api_key: s.apiKey }),
            [unit]: Math.round(x.value * 1e6) / 1e6,
            trailing_median: Math.round(x.median * 1e6) / 1e6,
            spike_factor: policy.spike_factor,
            window_days: x.history_days,
          },
        });
      }
    }
  }
  return out;
}

/**
 * The tenant-wide rules (unsanctioned use, spikes) over every stored usage row: idempotent, each finding recorded once.
 * Returns the findings recorded now.
 */
export async function detectFindings(db: DatabaseExecutor, tenantId: string): Promise<number> {
  const policy = await getPolicy(db, tenantId);
  let recorded = 0;
  for (const c of [...(await unsanctioned(db, tenantId, policy)), ...(await spikes(db, tenantId, policy))]) {
    if (await record(db, tenantId, c)) recorded++;
  }
  return recorded;
}

/**
 * What the sync engine calls after each completed sync of an `llm_providers` connector: the connector's new users,
 * keys and models (its first completed sync only sets the baseline), then the tenant-wide rules. Idempotent.
 */
export async function aiUsageSynced(db: DatabaseExecutor, input: { tenantId: string; connectorId: string }): Promise<number> {
  const c = await db.query<{ connector_type: string }>('SELECT connector_type FROM connectors WHERE tenant_id = $1 AND id = $2', [input.tenantId, input.connectorId]);
  const provider = c.rows[0]?.connector_type;
  if (provider === undefined) return 0;
  let recorded = 0;
  for (const f of await newValues(db, input.tenantId, input.connectorId, provider)) {
    if (await record(db, input.tenantId, f)) recorded++;
  }
  return recorded + (await detectFindings(db, input.tenantId));
}

export interface FindingsQuery {
  readonly tenantId: string;
  readonly rules?: readonly string[];
  readonly providers?: readonly string[];
  /** Findings detected at or after this instant. */
  readonly since?: Date;
  readonly limit: number;
}

/** The tenant's findings, newest first. */
export async function listFindings(db: Queryable, q: FindingsQuery): Promise<Finding[]> {
  const params: unknown[] = [q.tenantId];
  const where = ['tenant_id = $1'];
  if (q.rules && q.rules.length > 0) {
    params.push([...q.rules]);
    where.push(`rule = ANY($${params.length}::text[])`);
  }
  if (q.providers && q.providers.length > 0) {
    params.push([...q.providers]);
    where.push(`provider = ANY($${params.length}::text[])`);
  }
  if (q.since) {
    params.push(q.since.toISOString());
    where.push(`detected_at >= $${params.length}::timestamptz`);
  }
  params.push(q.limit);
  const r = await db.query<{ finding_id: string; rule: FindingRule; provider: string; subject: string; details: Record<string, unknown>; first_seen: string | null; detected_at: Date | string }>(
    `SELECT finding_id, rule, provider, subject, details, first_seen::text AS first_seen, detected_at FROM ai_usage_findings
     WHERE ${where.join(' AND ')} ORDER BY detected_at DESC, finding_id DESC LIMIT $${params.length}`,
    params,
  );
  return r.rows.map((x) => ({ ...x, detected_at: new Date(x.detected_at).toISOString() }));
}

/**
 * Replaces the tenant's policy (audited `ai_usage.policy_updated` with the policy as given) and judges the usage
 * under it at once: the stored policy and how many findings it raised now.
 */
export async function replacePolicy(
  db: DatabaseExecutor,
  actor: AuditActor,
  policy: AiUsagePolicy,
): Promise<AiUsagePolicy & { updated_at: string | null; new_findings: number }> {
  await putPolicy(db, actor.tenantId, policy, actor.id);
  await recordAuditBy(db, actor, Ops.aiUsagePolicyUpdated, { ...policy });
  const newFindings = await detectFindings(db, actor.tenantId);
  return { ...(await getPolicy(db, actor.tenantId)), new_findings: newFindings };
}
