import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, addDocs, type Corpus, daysAgo, NOW, seedCorpus } from './fixtures.ts';

describe('POST /v1/federate', () => {
  let t: TestApp;
  let ids: Corpus;
  const federate = (payload: unknown, headers: Record<string, string> = t.admin, url = '/v1/federate') =>
    t.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

  before(async () => {
    t = await createTestApp({ clock: fixedClock(NOW), env: { ATRIUM_RATE_LIMIT_BURST: '1000' } });
    ids = await seedCorpus(t);
  });
  after(() => t.close());

  it('answers every spec field with measured latency and a sha256 query hash', async () => {
    const res = await federate({ query: 'payment outage', user_id: 'u-shape' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['damping_active', 'items', 'latency_ms', 'nodes_consulted', 'query_hash', 'user_entropy']);
    assert.match(body.query_hash, /^sha256:[0-9a-f]{64}$/);
    assert.ok(Number.isInteger(body.latency_ms) && body.latency_ms >= 0);
    assert.equal(body.user_entropy, 0);
    assert.equal(body.damping_active, false);
    assert.deepEqual(body.nodes_consulted, ['github-eng', 'slack-ops']);
    assert.ok(body.items.length >= 3);
    const item = body.items.find((i: { id: string }) => i.id === ids.outage);
    assert.ok(item, 'the outage issue is found');
    assert.deepEqual(Object.keys(item).sort(), [
      'content',
      'federation_confidence',
      'id',
      'is_critical',
      'metadata',
      'relevance_score',
      'semantic_similarity',
      'source_node',
      'suppressed_by_tombstone',
      'temporal_status',
    ]);
    assert.equal(item.source_node, 'github-eng');
    assert.equal(item.is_critical, true);
    assert.equal(item.temporal_status, 'recent');
    assert.equal(item.suppressed_by_tombstone, false);
    assert.equal(item.federation_confidence, 1);
    assert.ok(item.semantic_similarity > 0 && item.semantic_similarity <= 1, 'glove vectors give a semantic score');
    assert.ok(item.relevance_score > 0 && item.relevance_score <= 1);
    assert.equal(item.metadata.title, 'Checkout outage: payment service returns 502');
    assert.equal(item.metadata.url, 'https://example.test/shop/issues/1');
    assert.equal(item.metadata.author, 'alice');
    assert.equal(item.metadata.timestamp, daysAgo(2));
    assert.equal(item.metadata.connector_type, 'github');
    assert.equal(item.metadata.document_type, 'issue');
    assert.equal(item.metadata.repository, 'shop');
    const sorted = [...body.items].sort((a, b) => b.relevance_score - a.relevance_score);
    assert.deepEqual(body.items, sorted, 'ordered by relevance');
    const statuses = Object.fromEntries(body.items.map((i: { id: string; temporal_status: string }) => [i.id, i.temporal_status]));
    assert.equal(statuses[ids.retry], 'stale');
    assert.equal(statuses[ids.wiki], 'historical');
  });

  it('gives equal hashes for equal requests and honours the limit and sources aliases', async () => {
    const a = (await federate({ query: 'payment', user_id: 'u-alias', node_ids: ['slack-ops'], max_results: 1 })).json();
    const b = (await federate({ user_id: 'u-alias', limit: 1, sources: ['slack-ops'], query: '  payment ' })).json();
    assert.equal(a.query_hash, b.query_hash);
    assert.equal(b.items.length, 1);
    assert.deepEqual(b.nodes_consulted, ['slack-ops']);
    assert.equal(b.items[0].source_node, 'slack-ops');
    const c = (await federate({ query: 'payment', user_id: 'u-alias2', node_ids: ['slack-ops'], max_results: 1 })).json();
    assert.notEqual(a.query_hash, c.query_hash);
    // An empty intent_signal or filters object says nothing: the same request, the same hash.
    const d = (await federate({ query: 'payment', user_id: 'u-alias', node_ids: ['slack-ops'], max_results: 1, intent_signal: {}, filters: {} })).json();
    assert.equal(d.query_hash, a.query_hash);
  });

  it('explains scores with include_reasoning (and includeReasoning)', async () => {
    for (const flag of ['include_reasoning', 'includeReasoning']) {
      const body = (await federate({ query: 'payment outage', user_id: `u-why-${flag}`, [flag]: true })).json();
      assert.equal(body.reasoning.entropy_level, 'very_low');
      assert.deepEqual(body.reasoning.intent_inferred.length, 5);
      const r = body.items[0].reasoning;
      for (const k of ['match', 'semantic', 'lexical', 'decay', 'temporal_weight', 'intent_fit', 'intent_features', 'critical_signals', 'formula']) {
        assert.ok(k in r, k);
      }
    }
    const plain = (await federate({ query: 'payment outage', user_id: 'u-why-not' })).json();
    assert.equal(plain.reasoning, undefined);
    assert.equal(plain.items[0].reasoning, undefined);
  });

  it('applies filters: date range, authors, types, connector and document type', async () => {
    type Item = { id: string; metadata: Record<string, unknown> };
    const q = async (filters: unknown) => (await federate({ query: 'payment', user_id: 'u-filter', filters })).json().items as Item[];
    const check = async (filters: unknown, keep: (i: Item) => boolean, mustInclude: string[]) => {
      const items = await q(filters);
      assert.ok(items.length > 0, JSON.stringify(filters));
      for (const i of items) assert.ok(keep(i), `${JSON.stringify(filters)} let ${i.id} through`);
      for (const id of mustInclude) assert.ok(items.some((i) => i.id === id), `${JSON.stringify(filters)} lost ${id}`);
    };
    const ts = (i: Item) => Date.parse(String(i.metadata.timestamp));
    await check({ date_range: { after: daysAgo(5) } }, (i) => ts(i) >= Date.parse(daysAgo(5)), [ids.outage!, ids.alerts!]);
    await check({ dateRange: { before: daysAgo(10) } }, (i) => ts(i) < Date.parse(daysAgo(10)), [ids.retry!, ids.wiki!]);
    // A date without a time covers whole days (UTC): `after` from its midnight, `before` through its end.
    const day = (iso: string) => iso.slice(0, 10);
    await check({ date_range: { after: day(daysAgo(5)) } }, (i) => ts(i) >= Date.parse(`${day(daysAgo(5))}T00:00:00Z`), [ids.outage!, ids.alerts!]);
    await check({ date_range: { before: day(daysAgo(2)) } }, (i) => ts(i) < Date.parse(`${day(daysAgo(1))}T00:00:00Z`), [ids.outage!, ids.retry!]);
    await check({ authors: ['bob'] }, (i) => i.metadata.author === 'bob', [ids.retry!]);
    await check({ types: ['issue'] }, (i) => i.metadata.document_type === 'issue', [ids.outage!, ids.retry!]);
    await check({ document_type: 'message' }, (i) => i.metadata.document_type === 'message', [ids.alerts!]);
    await check({ connector_type: 'slack' }, (i) => i.metadata.connector_type === 'slack', [ids.alerts!]);
  });

  it('lets an urgent intent signal favour recent, critical items', async () => {
    const rank = async (intent: unknown) => {
      const items = (await federate({ query: 'payment', user_id: 'u-intent', intent_signal: intent })).json().items as { id: string; relevance_score: number }[];
      return Object.fromEntries(items.map((i) => [i.id, i.relevance_score]));
    };
    const calm = await rank({ urgency: 0 });
    const urgent = await rank({ urgency: 1 });
    assert.ok(urgent[ids.wiki]! < calm[ids.wiki]!, 'old page loses weight under urgency');
    assert.ok(urgent[ids.outage]! / urgent[ids.wiki]! > calm[ids.outage]! / calm[ids.wiki]!);
  });

  it('damps a user with high entropy: fewer results, critical first', async () => {
    const topics = ['payment', 'kubernetes', 'hiring', 'budget', 'roadmap', 'security', 'lunch', 'invoices', 'onboarding', 'vacation', 'marketing', 'legal'];
    let last: { user_entropy: number; damping_active: boolean; items: { is_critical: boolean }[] } | undefined;
    for (const topic of topics) last = (await federate({ query: topic, user_id: 'u-busy' })).json();
    assert.ok(last);
    assert.ok(last.user_entropy > 2, `entropy ${last.user_entropy}`);
    assert.equal(last.damping_active, true);
    const busy = (await federate({ query: 'payment', user_id: 'u-busy', include_reasoning: true })).json();
    const calm = (await federate({ query: 'payment', user_id: 'u-calm' })).json();
    assert.equal(calm.damping_active, false);
    assert.ok(busy.items.length < calm.items.length, `${busy.items.length} < ${calm.items.length}`);
    assert.ok(busy.reasoning.per_node_budget < 30);
    assert.equal(busy.items[0].is_critical, true);
    if (busy.reasoning.entropy_level === 'critical') assert.ok(busy.items.every((i: { is_critical: boolean }) => i.is_critical));
  });

  it('keeps a low-ranked critical item through the damped per-source budget', async () => {
    await addConnector(t, 'escrow-notes', 'notion');
    const notes = Array.from({ length: 8 }, (_, i) => ({
      external_id: `note-${i}`,
      title: `Escrow settlement notes ${i}`,
      content: `Escrow settlement checklist, escrow totals and settlement steps, part ${i}.`,
      updated_at: daysAgo(1),
    }));
    await addDocs(t, 'escrow-notes', [...notes, { external_id: 'sev', title: 'Security incident', content: 'Rotate keys; the escrow export was exposed.', updated_at: daysAgo(1) }]);
    for (const topic of ['payment', 'kubernetes', 'hiring', 'budget', 'roadmap', 'security', 'lunch', 'invoices', 'onboarding', 'vacation', 'marketing', 'legal']) {
      await federate({ query: topic, user_id: 'u-overloaded' });
    }
    const body = (await federate({ query: 'escrow settlement', user_id: 'u-overloaded', node_ids: ['escrow-notes'], max_results: 2, include_reasoning: true })).json();
    assert.equal(body.reasoning.entropy_level, 'critical');
    assert.equal(body.damping_active, true);
    assert.ok(body.reasoning.per_node_budget < notes.length, `budget ${body.reasoning.per_node_budget} is smaller than the source's matches`);
    assert.deepEqual(
      body.items.map((i: { metadata: { title: string }; is_critical: boolean }) => [i.metadata.title, i.is_critical]),
      [['Security incident', true]],
    );
  });

  it('rejects invalid requests with 400 and the error shape', async () => {
    const cases: [unknown, RegExp][] = [
      [{ user_id: 'u' }, /query/],
      [{ query: 'x' }, /user_id/],
      [{ query: 'x', user_id: 'u', max_results: 0 }, /max_results/],
      [{ query: 'x', user_id: 'u', max_results: 1000 }, /max_results/],
      [{ query: 'x', user_id: 'u', intent_signal: { urgency: 2 } }, /intent_signal/],
      [{ query: 'x', user_id: 'u', bogus: true }, /bogus|unrecognized/i],
      [{ query: 'x', user_id: 'u', node_ids: ['nope'] }, /nope/],
      [{ query: 'x', user_id: 'u', max_results: 2, limit: 3 }, /limit/],
      [{ query: 'x', user_id: 'u', node_ids: [] }, /node_ids must name at least one node/],
      [{ query: 'x', user_id: 'u', sources: [] }, /sources must name at least one node/],
      [{ query: 'x', user_id: 'u', filters: { date_range: { after: '2026-02-30' } } }, /after/],
      [{ query: 'x', user_id: 'u', filters: { date_range: { after: '2026-05-02', before: '2026-04-30' } } }, /after must not be later/],
    ];
    for (const [payload, message] of cases) {
      const res = await federate(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      const err = res.json().error;
      assert.equal(err.code, 'invalid_request');
      assert.match(`${err.message} ${JSON.stringify(err.details)}`, message);
    }
    const bad = await t.app.inject({ method: 'POST', url: '/v1/federate', headers: { ...t.admin, 'content-type': 'application/json' }, payload: '{"query":' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'malformed_json');
  });

  it('answers 401 without a valid key and 403 without the query permission', async () => {
    const none = await federate({ query: 'x', user_id: 'u' }, {});
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error.code, 'unauthenticated');
    const wrong = await federate({ query: 'x', user_id: 'u' }, { authorization: 'Bearer atr_not_a_real_key_000000000' });
    assert.equal(wrong.statusCode, 401);
    const reader = await t.keyWith(['connector:read']);
    const denied = await federate({ query: 'x', user_id: 'u' }, { authorization: reader.authorization });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.code, 'permission_denied');
    const forced = await federate({ query: 'x', user_id: 'u' }, { authorization: reader.authorization }, '/v1/federate/force');
    assert.equal(forced.statusCode, 403);
  });

  it('caches per query and user, /force bypasses it, and a document change invalidates it', async () => {
    const q = { query: 'ledger reconciliation', user_id: 'u-cache', include_reasoning: true };
    assert.equal((await federate(q)).json().reasoning.cache, 'miss');
    assert.equal((await federate(q)).json().reasoning.cache, 'hit');
    const forced = (await federate(q, t.admin, '/v1/federate/force')).json();
    assert.equal(forced.reasoning.cache, 'bypass');
    assert.ok(!forced.items.some((i: { metadata: { external_id: string } }) => i.metadata.external_id === 'ledger-2'));
    await addDocs(t, 'github-eng', [{ external_id: 'ledger-2', title: 'Ledger reconciliation runbook', content: 'Reconciliation of the ledger, step by step.', updated_at: daysAgo(1) }]);
    const fresh = (await federate(q)).json();
    assert.equal(fresh.reasoning.cache, 'miss');
    assert.ok(fresh.items.some((i: { metadata: { external_id: string } }) => i.metadata.external_id === 'ledger-2'));
  });

  it('sees a new source and a new tombstone on the very next query (the embedded context memo follows every write)', async () => {
    const q = { query: 'ledger reconciliation', user_id: 'u-memo', include_reasoning: true, max_results: 50 };
    const before = (await federate(q)).json();
    await federate(q);
    assert.ok(!before.nodes_consulted.includes('notion-new'));
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('notion-new', 'default', 'notion', 'new', 'idle')`);
    const withSource = (await federate(q)).json();
    assert.ok(withSource.nodes_consulted.includes('notion-new'), 'the new source is consulted');
    const target = withSource.items[0];
    assert.ok(target && !target.suppressed_by_tombstone);
    const forget = await t.app.inject({ method: 'POST', url: '/v1/forget', headers: t.admin, payload: { document_ids: [target.id] } });
    assert.equal(forget.statusCode, 201);
    const after = (await federate(q)).json();
    assert.equal(after.reasoning.cache, 'hit', 'a tombstone does not change the documents, so the result cache stays');
    assert.equal(after.items.find((i: { id: string }) => i.id === target.id)?.suppressed_by_tombstone, true);
    const lifted = await t.app.inject({ method: 'DELETE', url: `/v1/forget/${forget.json().tombstones[0].id}`, headers: t.admin });
    assert.equal(lifted.statusCode, 200);
    assert.equal((await federate(q)).json().items.find((i: { id: string }) => i.id === target.id)?.suppressed_by_tombstone, false);
    await t.db.query(`DELETE FROM connectors WHERE id = 'notion-new'`);
    assert.ok(!(await federate(q)).json().nodes_consulted.includes('notion-new'));
  });

  it('records an audit event with the query hash and the activity behind entropy', async () => {
    const body = (await federate({ query: 'payment alerts', user_id: 'u-audit' })).json();
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=federation.query', headers: t.admin });
    const ev = audit.json().events.find((e: { query_hash?: string }) => e.query_hash === body.query_hash);
    assert.ok(ev, 'audit event present');
    assert.equal(ev.user_id, 'u-audit');
    const rows = await t.db.query('SELECT query_hash FROM federation_activity WHERE tenant_id = $1 AND user_id = $2', ['default', 'u-audit']);
    assert.deepEqual(rows.rows, [{ query_hash: body.query_hash }]);
  });

  it('keeps tenants apart', async () => {
    const other = await t.keyWith(['query'], 'tenant-b');
    const body = (await federate({ query: 'payment', user_id: 'u-b' }, { authorization: other.authorization })).json();
    assert.deepEqual(body.items, []);
    assert.deepEqual(body.nodes_consulted, []);
    const res = await federate({ query: 'payment', user_id: 'u-b', node_ids: ['github-eng'] }, { authorization: other.authorization });
    assert.equal(res.statusCode, 400);
  });
});

describe('federate rate limit', () => {
  it('answers 429 with Retry-After past the per-key burst', async () => {
    const t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_BURST: '2', ATRIUM_RATE_LIMIT_PER_MINUTE: '1' } });
    try {
      const send = () => t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'x', user_id: 'u' } });
      assert.equal((await send()).statusCode, 200);
      assert.equal((await send()).statusCode, 200);
      const limited = await send();
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error.code, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
    } finally {
      await t.close();
    }
  });
});
