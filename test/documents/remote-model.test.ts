import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * The default model is a remote OpenAI-compatible API (a fake on loopback) that breaks: search keeps
 * answering from BM25, a job that cannot succeed fails at once, and re-pushing the documents it left
 * without vectors embeds them once the model is back.
 */
describe('a remote embedding model that fails', () => {
  let t: TestApp;
  let mode: 'ok' | 'reject' = 'ok';
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (mode === 'reject') {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
        return;
      }
      const { input } = JSON.parse(raw) as { input: string[] };
      res.end(JSON.stringify({ data: input.map((s, index) => ({ index, embedding: [s.length, (s.match(/[aeiou]/g) ?? []).length, 1] })) }));
    });
  });
  const push = (documents: unknown[]) =>
    t.app.inject({ method: 'POST', url: '/v1/connectors/api-remote/documents', headers: t.admin, payload: { documents } });
  const job = async (id: string) => (await t.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: t.admin })).json();
  const modelOf = async (externalId: string) =>
    (await t.db.query<{ m: string | null }>('SELECT embedding_model AS m FROM documents WHERE external_id = $1', [externalId])).rows[0]?.m;

  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t = await createTestApp({
      env: {
        ATRIUM_EMBEDDINGS_OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        ATRIUM_EMBEDDINGS_OPENAI_MODEL: 'fake',
        ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS: '3',
        ATRIUM_EMBEDDING_MODEL: 'openai/fake',
      },
    });
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('api-remote', 'default', 'api', 'remote', 'connected')`);
  });
  after(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('keeps search answering, fails a hopeless job at once, and embeds stuck documents on a re-push', async () => {
    const first = await push([{ external_id: 'a', title: 'Espresso tamping', content: 'Tamp the espresso evenly.' }]);
    assert.equal(await t.runtime.worker.drain(), 1);
    assert.equal((await job(first.json().embed_job_id)).status, 'completed');
    assert.equal(await modelOf('a'), 'openai/fake');

    mode = 'reject';
    const doc = { external_id: 'b', title: 'Milk steaming', content: 'Steam the milk to sixty degrees.' };
    const second = await push([doc]);
    assert.equal(second.statusCode, 200, 'the push is accepted: vectors come later');
    await t.runtime.worker.drain();
    const failed = await job(second.json().embed_job_id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 1, 'a rejected key is not retried for minutes');
    assert.match(failed.last_error, /HTTP 401: Incorrect API key provided/);
    assert.equal(await modelOf('b'), null);

    // The model refuses queries too: hybrid search and the federated query answer from BM25.
    const search = await t.app.inject({ method: 'POST', url: '/v1/search', headers: t.admin, payload: { query: 'milk steaming', limit: 5 } });
    assert.equal(search.statusCode, 200, search.body);
    assert.equal(search.json().passages[0].external_id, 'b');
    assert.equal(search.json().passages[0].semantic_score, null);
    const fed = await t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'milk steaming', user_id: 'u' } });
    assert.equal(fed.statusCode, 200, fed.body);
    assert.equal(fed.json().items[0].metadata.external_id, 'b');
    // Vector search has nothing else to offer: it reports the model's error.
    const vector = await t.app.inject({ method: 'POST', url: '/v1/search', headers: t.admin, payload: { query: 'milk', mode: 'vector' } });
    assert.equal(vector.statusCode, 502);
    assert.match(vector.json().error.message, /HTTP 401/);

    // The model is back: re-pushing the unchanged document queues a job for its missing vectors.
    mode = 'ok';
    const again = await push([doc]);
    assert.equal(again.json().unchanged, 1);
    assert.ok(again.json().embed_job_id, 'a job for the document the failed job left without vectors');
    assert.equal((await push([doc])).json().embed_job_id, null, 'not twice while that job is queued');
    assert.equal(await t.runtime.worker.drain(), 1);
    assert.equal(await modelOf('b'), 'openai/fake');
    assert.equal((await push([doc])).json().embed_job_id, null, 'nothing left to embed');
  });
});
