import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

async function addConnector(t: TestApp, id: string, type = 'api', tenant = 'default') {
  await t.db.query('INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [tenant]);
  await t.db.query(
    `INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, $2, $3, $1, 'connected')`,
    [id, tenant, type],
  );
}

const doc = (i: number, extra: Record<string, unknown> = {}) => ({
  external_id: `ext-${i}`,
  title: `Espresso guide ${i}`,
  content: `# Dialing in\n\nTamping pressure and grind size control espresso extraction number ${i}.\n\n## Milk\n\nSteam the milk to sixty degrees.`,
  author: 'ana',
  document_type: 'page',
  ...extra,
});

describe('documents over HTTP', () => {
  let t: TestApp;
  let writer: { authorization: string };
  let reader: { authorization: string };
  before(async () => {
    t = await createTestApp();
    await addConnector(t, 'api-one');
    await addConnector(t, 'files-one', 'filesystem');
    writer = await t.keyWith(['connector:write']);
    reader = await t.keyWith(['query']);
  });
  after(() => t.close());

  const push = (connector: string, documents: unknown[], headers = writer) =>
    t.app.inject({ method: 'POST', url: `/v1/connectors/${connector}/documents`, headers, payload: { documents } });
  const search = (query: string, headers = reader, extra: Record<string, unknown> = {}) =>
    t.app.inject({ method: 'POST', url: '/v1/search', headers, payload: { query, mode: 'lexical', ...extra } });
  const chunkCount = async () => Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')).rows[0]?.n);

  it('stores a batch, finds it by search and reads a document in full', async () => {
    const res = await push('api-one', [doc(1), doc(2), { external_id: 'kb-9', title: 'Vacation policy', content: 'Employees get twenty days of paid leave.' }]);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual([body.added, body.updated, body.unchanged], [3, 0, 0]);
    assert.equal(body.documents.length, 3);
    assert.match(body.documents[0].id, /^doc_/);

    const found = await search('paid leave days');
    assert.equal(found.statusCode, 200, found.body);
    const top = found.json().passages[0];
    assert.equal(top.external_id, 'kb-9');
    assert.ok(top.lexical_score > 0);
    assert.equal(top.semantic_score, null);
    assert.ok(top.fused_score > 0 && top.fused_score <= 1);

    const read = await t.app.inject({ method: 'GET', url: `/v1/documents/${top.document_id}`, headers: reader });
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().content, 'Employees get twenty days of paid leave.');
    assert.equal(read.json().connector_type, 'api');
    assert.equal(read.json().source_node, 'api-one');
  });

  it('treats an unchanged re-push as a no-op and a changed one as a replacement of its chunks', async () => {
    const before = await t.db.query<{ id: string }>("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'ext-1' ORDER BY c.id");
    const again = await push('api-one', [doc(1), doc(2)]);
    assert.deepEqual([again.json().added, again.json().updated, again.json().unchanged], [0, 0, 2]);
    const same = await t.db.query<{ id: string }>("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'ext-1' ORDER BY c.id");
    assert.deepEqual(same.rows, before.rows, 'unchanged content keeps its chunks');

    const metaOnly = await push('api-one', [doc(1, { metadata: { channel: 'barista' } })]);
    assert.deepEqual([metaOnly.json().added, metaOnly.json().updated], [0, 1]);
    const kept = await t.db.query<{ id: string }>("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'ext-1' ORDER BY c.id");
    assert.deepEqual(kept.rows, before.rows, 'a metadata-only change does not re-chunk');

    const changed = await push('api-one', [doc(1, { content: 'Cold brew steeps for eighteen hours.', metadata: { channel: 'barista' } })]);
    assert.equal(changed.json().updated, 1);
    const after = await t.db.query<{ id: string; content: string }>("SELECT c.id, coalesce(c.content, d.content) AS content FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'ext-1'");
    assert.equal(after.rows.length, 1);
    assert.ok(!before.rows.some((r) => r.id === after.rows[0]?.id));
    assert.equal(after.rows[0]?.content, 'Cold brew steeps for eighteen hours.');
    const hits = (await search('cold brew eighteen hours')).json().passages;
    assert.equal(hits[0].external_id, 'ext-1');
    assert.equal((await search('tamping pressure')).json().passages.filter((p: { external_id: string }) => p.external_id === 'ext-1').length, 0);
  });

  it('deletes a document with its chunks and term statistics', async () => {
    const before = await chunkCount();
    const del = await t.app.inject({ method: 'DELETE', url: '/v1/connectors/api-one/documents/kb-9', headers: writer });
    assert.equal(del.statusCode, 200);
    assert.equal(await chunkCount(), before - 1);
    const orphans = await t.db.query('SELECT 1 FROM chunks c LEFT JOIN documents d ON d.id = c.document_id WHERE d.id IS NULL');
    assert.equal(orphans.rows.length, 0);
    const vac = await t.db.query("SELECT 1 FROM chunk_term_stats WHERE term = 'vacat'");
    assert.equal(vac.rows.length, 0, 'a term only the deleted document had leaves the statistics');
    assert.equal((await search('paid leave')).json().passages.length, 0);
    const again = await t.app.inject({ method: 'DELETE', url: '/v1/connectors/api-one/documents/kb-9', headers: writer });
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().error.code, 'not_found');
  });

  it('rejects a batch with one invalid document whole, naming index and field', async () => {
    const before = await chunkCount();
    const res = await push('api-one', [doc(50), { external_id: 'x', content: 'no title' }, doc(51)]);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'invalid_request');
    assert.match(res.json().error.message, /documents\.1\.title/);
    assert.equal(await chunkCount(), before, 'nothing from the batch is stored');
    const badDate = await push('api-one', [doc(52, { updated_at: 'yesterday' })]);
    assert.equal(badDate.statusCode, 400);
    assert.match(badDate.json().error.message, /documents\.0\.updated_at/);
    const typo = await push('api-one', [doc(53), doc(54, { update_at: '2026-01-01T00:00:00Z' })]);
    assert.equal(typo.statusCode, 400);
    assert.match(`${typo.json().error.message} ${JSON.stringify(typo.json().error.details)}`, /documents\.1.*update_at|update_at.*documents\.1/);
    assert.equal(await chunkCount(), before, 'nothing from the batch is stored');
  });

  it('answers 413 above 1,000 documents, 404 for unknown connectors, 409 for non-api ones', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ external_id: `m${i}`, title: 't', content: 'c' }));
    const big = await push('api-one', many);
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().error.code, 'payload_too_large');
    const unknown = await push('api-nope', [doc(1)]);
    assert.equal(unknown.statusCode, 404);
    const files = await push('files-one', [doc(1)]);
    assert.equal(files.statusCode, 409);
    const missing = await t.app.inject({ method: 'GET', url: '/v1/documents/doc_nothing', headers: reader });
    assert.equal(missing.statusCode, 404);
  });

  it('needs connector:write to push and query to read', async () => {
    assert.equal((await push('api-one', [doc(1)], reader)).statusCode, 403);
    assert.equal((await search('espresso', writer)).statusCode, 403);
  });

  it('keeps tenants apart', async () => {
    await addConnector(t, 'api-other', 'api', 'acme');
    const acmeWriter = await t.keyWith(['connector:write'], 'acme');
    const acmeReader = await t.keyWith(['query'], 'acme');
    assert.equal((await push('api-one', [doc(7)], acmeWriter)).statusCode, 404, 'another tenant’s connector is invisible');
    const r = await push('api-other', [{ external_id: 'secret', title: 'Acme roadmap', content: 'Espresso machines for everyone in 2027.' }], acmeWriter);
    assert.equal(r.statusCode, 200);
    const acmeId = r.json().documents[0].id;
    const mine = (await search('espresso')).json().passages;
    assert.ok(mine.length > 0 && mine.every((p: { source_node: string }) => p.source_node === 'api-one'));
    const theirs = (await search('espresso', acmeReader)).json().passages;
    assert.deepEqual(theirs.map((p: { external_id: string }) => p.external_id), ['secret']);
    assert.equal((await t.app.inject({ method: 'GET', url: `/v1/documents/${acmeId}`, headers: reader })).statusCode, 404);
    const stats = await t.db.query<{ tenant_id: string; chunk_count: number }>('SELECT tenant_id, chunk_count::int FROM chunk_corpus_stats ORDER BY tenant_id');
    assert.deepEqual(stats.rows.map((s) => s.tenant_id), ['acme', 'default']);
    assert.equal(stats.rows[0]?.chunk_count, 1);
  });

  it('answers a query of words the model does not know (zero vector) from BM25, in every mode', async () => {
    const res = await push('api-one', [{ external_id: 'sku', title: 'Part xqzt9000', content: 'The xqzt9000 gasket fits the group head.' }]);
    assert.equal(res.statusCode, 200);
    // Nothing the model knows: hybrid falls back to BM25, vector mode finds nothing, neither fails.
    const hybrid = await search('xqzt9000', reader, { mode: 'hybrid' });
    assert.equal(hybrid.statusCode, 200, hybrid.body);
    const [top] = hybrid.json().passages;
    assert.equal(top.external_id, 'sku');
    assert.equal(top.semantic_score, null);
    const vector = await search('xqzt9000 !!!', reader, { mode: 'vector' });
    assert.equal(vector.statusCode, 200, vector.body);
    assert.deepEqual(vector.json().passages, []);
    const fed = await t.app.inject({ method: 'POST', url: '/v1/federate', headers: reader, payload: { query: 'xqzt9000', user_id: 'u-unknown' } });
    assert.equal(fed.statusCode, 200, fed.body);
    assert.ok(fed.json().items.some((i: { metadata: { external_id: string } }) => i.metadata.external_id === 'sku'));
    // A document whose text the model does not know is stored with the zero vector; a known-word query still
    // ranks it without NaN (its cosine is undefined, so it has none).
    await push('api-one', [{ external_id: 'blank', title: 'qqzx', content: 'zzqv xqzt9000' }]);
    const mixed = await search('gasket xqzt9000', reader, { mode: 'hybrid', limit: 10 });
    assert.equal(mixed.statusCode, 200, mixed.body);
    const blank = mixed.json().passages.find((p: { external_id: string }) => p.external_id === 'blank');
    assert.ok(blank, 'the zero-vector document is found by BM25');
    assert.equal(blank.semantic_score, null);
    await t.app.inject({ method: 'DELETE', url: '/v1/connectors/api-one/documents/sku', headers: writer });
    await t.app.inject({ method: 'DELETE', url: '/v1/connectors/api-one/documents/blank', headers: writer });
  });

  it('filters search by source, author and type', async () => {
    const bySource = (await search('espresso', reader, { sources: ['api-nope'] })).json().passages;
    assert.equal(bySource.length, 0);
    const byAuthor = (await search('espresso', reader, { filters: { authors: ['ana'] } })).json().passages;
    assert.ok(byAuthor.length > 0 && byAuthor.every((p: { author: string }) => p.author === 'ana'));
    const byType = (await search('espresso', reader, { filters: { document_types: ['issue'] } })).json().passages;
    assert.equal(byType.length, 0);
    const byConnectorType = (await search('espresso', reader, { filters: { connector_types: ['api'] } })).json().passages;
    assert.ok(byConnectorType.length > 0);
    // Dates without a time cover whole days (UTC); the documents were ingested today.
    const today = new Date().toISOString().slice(0, 10);
    assert.ok((await search('espresso', reader, { filters: { after: today, before: today } })).json().passages.length > 0);
    assert.equal((await search('espresso', reader, { filters: { before: '2000-01-01' } })).json().passages.length, 0);
    assert.equal((await search('espresso', reader, { filters: { after: '2026-02-30' } })).statusCode, 400);
  });
});

describe('the embed job of a push, over HTTP', () => {
  let t: TestApp;
  before(async () => {
    // The distilled model embeds off the request path, in a documents.embed job.
    t = await createTestApp({ env: { ATRIUM_EMBEDDING_MODEL: 'builtin/use-distilled-512d' } });
    await addConnector(t, 'api-slow');
  });
  after(() => t.close());

  it('returns the job id, which GET /v1/jobs/{id} follows to completion', async () => {
    const writer = await t.keyWith(['connector:write']);
    const res = await t.app.inject({ method: 'POST', url: '/v1/connectors/api-slow/documents', headers: writer, payload: { documents: [doc(1), doc(2)] } });
    assert.equal(res.statusCode, 200);
    const jobId = res.json().embed_job_id;
    assert.match(jobId, /^job_/);
    const poll = () => t.app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: writer });
    let job = (await poll()).json();
    assert.equal(job.kind, 'documents.embed');
    assert.equal(job.status, 'queued');
    assert.deepEqual([job.progress, job.result, job.finished_at], [0, null, null]);
    // The worker (started by `atrium serve`; run here by hand) embeds the chunks.
    assert.equal(await t.runtime.worker.drain(), 1);
    job = (await poll()).json();
    assert.equal(job.status, 'completed');
    assert.equal(job.progress, 1);
    assert.equal(job.done, job.total);
    assert.ok(job.total >= 2);
    assert.ok(job.finished_at);
    const docId = res.json().documents[0].id;
    const stored = (await t.app.inject({ method: 'GET', url: `/v1/documents/${docId}`, headers: t.admin })).json();
    assert.equal(stored.embedding_model, 'builtin/use-distilled-512d');
    assert.equal(stored.tenant_id, 'default');
    // Unknown ids, another tenant's, and callers without connector:write are refused.
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/jobs/job_nope', headers: writer })).statusCode, 404);
    const reader = await t.keyWith(['query']);
    assert.equal((await poll().then(() => t.app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: reader }))).statusCode, 403);
  });
});
