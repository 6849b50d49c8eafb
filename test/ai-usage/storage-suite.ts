import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { upsertUsage } from '../../src/ai-usage/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';

const T = 'default';

/** ai_usage storage on one engine: rows by record_id, a re-read bucket replaced, gone with its connector. */
export function usageStorageSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>): void {
  describe(`ai_usage storage on ${name}`, () => {
    let db: DatabaseExecutor;
    let close: () => Promise<void>;
    before(async () => {
      ({ db, close } = await open());
      for (const id of ['oa1', 'oa2']) {
        await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, $2, 'openai', $1)`, [id, T]);
      }
    });
    after(() => close());

    const rows = async (connectorId: string) =>
      (
        await db.query<Record<string, unknown>>(
          `SELECT record_id, kind, day::text AS day, provider, "user", api_key, model, requests::int AS requests, input_tokens::int AS input_tokens,
                  output_tokens::int AS output_tokens, cost_usd::float8 AS cost_usd, metadata FROM ai_usage WHERE connector_id = $1 ORDER BY record_id`,
          [connectorId],
        )
      ).rows;

    it('stores each bucket once, keyed by record_id; re-reading a bucket replaces it', async () => {
      const n = await upsertUsage(db, {
        tenantId: T,
        connectorId: 'oa1',
        provider: 'openai',
        records: [
          { record_id: 'u:1', kind: 'usage', day: '2026-11-20', user: 'ada@acme.test', api_key: 'key_a', model: 'gpt-4.1', requests: 3, input_tokens: 1200, output_tokens: 300 },
          { record_id: 'c:1', kind: 'cost', day: '2026-11-20', project: 'proj_1', cost_usd: 3.1, metadata: { line_item: 'gpt-4.1, input' } },
          // the same bucket twice on one page: the last wins
          { record_id: 'u:1', kind: 'usage', day: '2026-11-20', user: 'ada@acme.test', api_key: 'key_a', model: 'gpt-4.1', requests: 4, input_tokens: 1500, output_tokens: 350 },
        ],
      });
      assert.equal(n, 2);
      await upsertUsage(db, { tenantId: T, connectorId: 'oa1', provider: 'openai', records: [{ record_id: 'c:1', kind: 'cost', day: '2026-11-20', project: 'proj_1', cost_usd: 3.25 }] });
      const r = await rows('oa1');
      assert.deepEqual(
        r.map((x) => [x.record_id, x.kind, x.day, x.requests, x.input_tokens, x.output_tokens, x.cost_usd]),
        [
          ['c:1', 'cost', '2026-11-20', 0, 0, 0, 3.25],
          ['u:1', 'usage', '2026-11-20', 4, 1500, 350, 0],
        ],
      );
      assert.equal(r[1]?.user, 'ada@acme.test');
      assert.equal(r[1]?.provider, 'openai');
      assert.deepEqual(r[0]?.metadata, {});
    });

    it('the same record_id under another connector is another row', async () => {
      await upsertUsage(db, { tenantId: T, connectorId: 'oa2', provider: 'openai', records: [{ record_id: 'u:1', kind: 'usage', day: '2026-11-21', requests: 1 }] });
      assert.equal((await rows('oa2')).length, 1);
      assert.equal((await rows('oa1')).length, 2);
    });

    it('refuses a bucket whose day is not a YYYY-MM-DD calendar day, storing nothing of the page', async () => {
      await assert.rejects(
        upsertUsage(db, { tenantId: T, connectorId: 'oa2', provider: 'openai', records: [{ record_id: 'bad', kind: 'usage', day: '2026-13-45' }] }),
        /day/,
      );
      assert.equal((await rows('oa2')).length, 1);
    });

    it('deleting the connector deletes its usage rows', async () => {
      await db.query('DELETE FROM connectors WHERE id = $1', ['oa2']);
      assert.equal((await rows('oa2')).length, 0);
      assert.equal((await rows('oa1')).length, 2);
    });
  });
}
