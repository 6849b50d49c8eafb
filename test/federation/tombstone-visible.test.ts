import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, addDocs } from './fixtures.ts';

type Item = { id: string; suppressed_by_tombstone: boolean };

describe('a forgotten document stays visible at the default max_results', () => {
  let t: TestApp;
  let forgotten = '';
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_FEDERATION_CACHE_TTL_MS: '0', ATRIUM_RATE_LIMIT_BURST: '1000' } });
    await addConnector(t, 'wiki', 'confluence');
    // 25 live documents about refunds, and the best match of all, which gets forgotten.
    const docs = Array.from({ length: 25 }, (_, i) => ({ external_id: `page-${i}`, title: `Refund note ${i}`, content: `refund policy detail number ${i} for customers` }));
    const ids = await addDocs(t, 'wiki', [{ external_id: 'best', title: 'Refund policy', content: 'refund policy refund policy refund policy: the whole refund policy' }, ...docs]);
    forgotten = ids[0]!;
    const writer = await t.keyWith(['connector:write']);
    const res = await t.app.inject({ method: 'POST', url: '/v1/forget', headers: writer, payload: { document_ids: [forgotten], reason: 'GDPR request 7' } });
    assert.equal(res.statusCode, 201, res.body);
  });
  after(() => t.close());

  it('is returned flagged among the 10 items the user gets, after the live ones', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'refund policy', user_id: 'u1' } });
    assert.equal(res.statusCode, 200, res.body);
    const items = res.json().items as Item[];
    assert.equal(items.length, 10);
    const flagged = items.filter((i) => i.suppressed_by_tombstone);
    assert.deepEqual(flagged.map((i) => i.id), [forgotten]);
    assert.equal(items.at(-1)?.id, forgotten, 'live items first');
  });
});
