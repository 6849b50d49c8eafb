import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('connector documents with U+0000 from the vendor', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('are stored without those characters instead of failing the page (and the sync retrying it forever)', async () => {
    const c = (await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'vendor' } })).json();
    const store = t.deps.connectorDocuments;
    assert.ok(store);
    const r = await store.upsert({
      tenantId: 'default',
      connectorId: c.connector_id,
      documents: [
        { external_id: 'a\u0000b', title: 'Report\u0000.pdf', content: 'binary\u0000tail', metadata: { 'k\u0000': ['v\u0000', { n: 'x\u0000' }] } },
        { external_id: 'clean', title: 'Clean', content: 'plain text' },
      ],
    });
    assert.equal(r.added, 2);
    const rows = await t.db.query<{ external_id: string; title: string; content: string; metadata: unknown }>(
      'SELECT d.external_id, d.title, coalesce(c.content, d.content) AS content, d.metadata FROM documents d JOIN chunks c ON c.document_id = d.id WHERE d.source_node = $1 ORDER BY 1',
      [c.connector_id],
    );
    const first = rows.rows.find((x) => x.external_id === 'ab');
    assert.ok(first, JSON.stringify(rows.rows));
    assert.equal(first.title, 'Report.pdf');
    assert.match(first.content, /binarytail/);
    assert.deepEqual(typeof first.metadata === 'string' ? JSON.parse(first.metadata) : first.metadata, { k: ['v', { n: 'x' }] });
  });
});
