import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KindHarness, kindHarness } from '../connectors/support.ts';
import { fakeAi } from './fake-kind.ts';

/** The sync engine stores an llm_providers kind's usage buckets and forces its documents' ACL. */
describe('AI-provider usage through the sync engine (a test-only llm_providers kind)', () => {
  let h: KindHarness;
  let id: string;
  before(async () => {
    h = await kindHarness('fakeai', 'http://127.0.0.1:9');
    fakeAi.usage = [1, 2, 3, 4, 5].map((i) => ({ record_id: `usage:2026-11-2${i}:key_a:gpt-4.1`, kind: 'usage' as const, day: `2026-11-2${i}`, api_key: 'key_a', model: 'gpt-4.1', user: 'ada@acme.test', requests: i, input_tokens: 1000 * i, output_tokens: 100 * i }));
    fakeAi.documents = [
      { external_id: 'usage-doc:2026-11-21', title: 'Usage 2026-11-21 quarterly zebra report', content: 'Usage 2026-11-21, key_a, gpt-4.1: zebra tokens', acl: { public: true } },
      { external_id: 'conversation:1', title: 'A zebra conversation', content: 'ada asked about the zebra budget' },
    ];
    const c = await h.create({ credentials: { api_key: 'sk-admin-test' } });
    assert.equal(c.statusCode, 201, c.body);
    id = c.json().connector_id;
    await h.worker.drain();
  });
  after(() => h.close());

  const usageRows = async () =>
    (await h.t.db.query<{ record_id: string; requests: string }>('SELECT record_id, requests::text AS requests FROM ai_usage WHERE connector_id = $1 ORDER BY record_id', [id])).rows;

  it('a sync stores every usage bucket of every page once, with the connector type as provider', async () => {
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const rows = await usageRows();
    assert.equal(rows.length, 5);
    const p = await h.t.db.query<{ provider: string }>('SELECT DISTINCT provider FROM ai_usage WHERE connector_id = $1', [id]);
    assert.deepEqual(p.rows, [{ provider: 'fakeai' }]);
  });

  it('syncing again (a look-back re-reading the same buckets, one of them changed) replaces rows, never duplicates', async () => {
    fakeAi.usage[4] = { ...fakeAi.usage[4]!, requests: 50 };
    await h.sync(id, false);
    const rows = await usageRows();
    assert.equal(rows.length, 5);
    assert.equal(rows.find((r) => r.record_id.includes('2026-11-25'))?.requests, '50');
  });

  it("stores the kind's documents with the ai_usage ACL, whatever ACL the kind wrote", async () => {
    const docs = await h.t.db.query<{ external_id: string; acl: unknown }>('SELECT external_id, acl FROM documents WHERE source_node = $1 ORDER BY 1', [id]);
    assert.deepEqual(
      docs.rows.map((d) => [d.external_id, d.acl]),
      [
        ['conversation:1', { groups: ['atrium:ai_usage'] }],
        ['usage-doc:2026-11-21', { groups: ['atrium:ai_usage'] }],
      ],
    );
  });

  it("a 'query' key's search never returns them; a key with ai_usage:read does; admin does", async () => {
    const search = async (headers: { authorization: string }) => {
      const r = await h.t.app.inject({ method: 'POST', url: '/v1/search', headers, payload: { query: 'zebra', mode: 'lexical' } });
      assert.equal(r.statusCode, 200, r.body);
      return (r.json().passages as { external_id: string }[]).map((p) => p.external_id).sort();
    };
    assert.deepEqual(await search(await h.t.keyWith(['query'])), []);
    assert.deepEqual(await search(await h.t.keyWith(['query', 'ai_usage:read'])), ['conversation:1', 'usage-doc:2026-11-21']);
    assert.deepEqual(await search(h.t.admin), ['conversation:1', 'usage-doc:2026-11-21']);
    const me = await h.t.app.inject({ method: 'GET', url: '/v1/me', headers: await h.t.keyWith(['query', 'ai_usage:read']) });
    assert.deepEqual(me.json().view.permission_groups, ['atrium:ai_usage']);
  });

  it('deleting the connector deletes its usage rows', async () => {
    const r = await h.t.app.inject({ method: 'DELETE', url: `/v1/connectors/${id}`, headers: h.t.admin });
    assert.ok(r.statusCode < 300, r.body);
    await h.worker.drain();
    assert.equal((await usageRows()).length, 0);
  });
});
