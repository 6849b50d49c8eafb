import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiUsageSynced, listFindings, putPolicy, spikeDays, upsertUsage, aiUsagePolicySchema, queryUsage } from '../../src/ai-usage/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { days, steady } from './seed.ts';

const T = 'default';

/**
 * The detector on one storage engine, seeded through the storage function: a baseline first sync raises nothing,
 * sanctioned steady use raises nothing, a new key, an unsanctioned model and a spike are each recorded once.
 */
export function findingsSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>): void {
  describe(`AI-usage findings on ${name}`, () => {
    let db: DatabaseExecutor;
    let close: () => Promise<void>;
    before(async () => {
      ({ db, close } = await open());
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('oa', $1, 'openai', 'OpenAI'), ('an', $1, 'anthropic', 'Anthropic')`, [T]);
      await putPolicy(db, T, aiUsagePolicySchema.parse({ allowed_providers: ['openai', 'anthropic'], allowed_models: ['gpt-4.1*', 'claude-sonnet-4*'] }), 'test');
    });
    after(() => close());

    const findings = async () => (await listFindings(db, { tenantId: T, limit: 100 })).map((f) => `${f.rule} ${f.provider} ${f.subject}`).sort();
    const auditCount = async () => Number((await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM audit_events WHERE action = 'ai_usage.finding'`)).rows[0]?.n);

    it("a connector's first completed sync is its baseline: 20 days of sanctioned steady use raise nothing", async () => {
      await upsertUsage(db, { tenantId: T, connectorId: 'oa', provider: 'openai', records: [...steady('openai', '2026-10-01', 20), ...steady('openai', '2026-10-01', 20, { key: 'key_old', user: 'bob@acme.test', model: 'gpt-4.1-mini' })] });
      await upsertUsage(db, { tenantId: T, connectorId: 'an', provider: 'anthropic', records: steady('anthropic', '2026-10-01', 20, { model: 'claude-sonnet-4-20250514', key: 'apikey_01' }) });
      assert.equal(await aiUsageSynced(db, { tenantId: T, connectorId: 'oa' }), 0);
      assert.equal(await aiUsageSynced(db, { tenantId: T, connectorId: 'an' }), 0);
      assert.deepEqual(await findings(), []);
    });

    it('later syncs of the same steady use (a look-back re-reading buckets, one more day) raise nothing', async () => {
      await upsertUsage(db, { tenantId: T, connectorId: 'an', provider: 'anthropic', records: steady('anthropic', '2026-10-15', 7, { model: 'claude-sonnet-4-20250514', key: 'apikey_01' }) });
      assert.equal(await aiUsageSynced(db, { tenantId: T, connectorId: 'an' }), 0);
      assert.deepEqual(await findings(), []);
    });

    it('a new key, an unsanctioned model and a spend and token spike are found, each once, with an audit event', async () => {
      await upsertUsage(db, {
        tenantId: T,
        connectorId: 'oa',
        provider: 'openai',
        records: [
          ...steady('openai', '2026-10-21', 1),
          { record_id: 'openai:usage:2026-10-21:key_new:o3-pro', kind: 'usage', day: '2026-10-21', user: 'ada@acme.test', api_key: 'key_new', model: 'o3-pro', requests: 400, input_tokens: 90_000, output_tokens: 30_000 },
          { record_id: 'openai:cost:2026-10-21:key_new', kind: 'cost', day: '2026-10-21', api_key: 'key_new', cost_usd: 240 },
        ],
      });
      assert.equal(await aiUsageSynced(db, { tenantId: T, connectorId: 'oa' }), 5);
      assert.deepEqual(await findings(), [
        'new_api_key openai key_new',
        'new_model openai o3-pro',
        'spend_spike openai 2026-10-21',
        'token_spike openai 2026-10-21',
        'unsanctioned_model openai o3-pro',
      ]);
      const all = await listFindings(db, { tenantId: T, limit: 100 });
      const key = all.find((f) => f.rule === 'new_api_key');
      assert.equal(key?.first_seen, '2026-10-21');
      assert.deepEqual({ ...key?.details }, { api_key: 'key_new', connector_id: 'oa', first_seen: '2026-10-21' });
      const spike = all.find((f) => f.rule === 'spend_spike');
      assert.equal(spike?.details.scope, 'provider');
      assert.ok(Number(spike?.details.cost_usd) === 250 && Number(spike?.details.trailing_median) === 21, JSON.stringify(spike?.details));
      const ev = await db.query<{ details: Record<string, unknown> }>(`SELECT details FROM audit_events WHERE action = 'ai_usage.finding' ORDER BY occurred_at`);
      assert.equal(ev.rows.length, 5);
      const keyEvent = ev.rows.find((r) => r.details.rule === 'new_api_key')?.details;
      assert.equal(keyEvent?.subject, 'key_new');
      assert.equal(keyEvent?.provider, 'openai');
      assert.equal(keyEvent?.since, '2026-10-21');
    });

    it('computing again records nothing more (idempotent)', async () => {
      assert.equal(await aiUsageSynced(db, { tenantId: T, connectorId: 'oa' }), 0);
      assert.equal(await aiUsageSynced(db, { tenantId: T, connectorId: 'an' }), 0);
      assert.equal(await auditCount(), 5);
    });

    it('the usage query sums per group, day ascending, spend descending otherwise', async () => {
      const byProvider = await queryUsage(db, { tenantId: T, groupBy: ['provider'], limit: 10 });
      assert.deepEqual(byProvider.rows.map((r) => r.provider), ['openai', 'anthropic']);
      const byDay = await queryUsage(db, { tenantId: T, groupBy: ['day', 'model'], filters: { provider: ['openai'] }, kind: 'usage', from: '2026-10-20', to: '2026-10-21', limit: 10 });
      assert.deepEqual(
        byDay.rows.map((r) => [r.day, r.model, r.requests]),
        [
          ['2026-10-20', 'gpt-4.1', 10],
          ['2026-10-20', 'gpt-4.1-mini', 10],
          ['2026-10-21', 'o3-pro', 400],
          ['2026-10-21', 'gpt-4.1', 10],
        ],
      );
      assert.equal(byDay.totals.requests, 430);
      assert.equal(byDay.truncated, false);
      const limited = await queryUsage(db, { tenantId: T, groupBy: ['day'], limit: 3 });
      assert.equal(limited.rows.length, 3);
      assert.equal(limited.truncated, true);
      assert.equal(limited.totals.cost_usd, byProvider.totals.cost_usd);
    });
  });

  describe('spikeDays', () => {
    const series = (vals: number[]) => new Map(days('2026-10-01', vals.length).map((d, i) => [d, vals[i] ?? 0]));
    it('needs min_baseline_days of history and a median above 0', () => {
      assert.deepEqual(spikeDays(series([1, 1, 1, 50]), 3, 7), []);
      assert.deepEqual(spikeDays(series([0, 0, 0, 0, 0, 0, 0, 0, 50]), 3, 7), []);
      assert.deepEqual(spikeDays(series([2, 2, 2, 2, 2, 2, 2, 7]), 3, 7).map((x) => [x.day, x.median]), [['2026-10-08', 2]]);
      assert.deepEqual(spikeDays(series([2, 2, 2, 2, 2, 2, 2, 6]), 3, 7), []);
    });
    it('days without usage inside the window count as 0', () => {
      const s = new Map([
        ['2026-10-01', 4],
        ['2026-10-02', 4],
        ['2026-10-10', 5],
      ]);
      // window 10-01..10-09: 4, 4 and seven 0s: median 0, nothing judged
      assert.deepEqual(spikeDays(s, 3, 7), []);
    });
  });
}
