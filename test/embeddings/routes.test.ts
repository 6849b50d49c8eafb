import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { cosine, createEmbeddingRegistry } from '../../src/embeddings/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';

describe('embedding registry configuration', () => {
  it('defaults to GloVe, lists both built-ins, and refuses an unknown default', () => {
    const reg = createEmbeddingRegistry(loadConfig({}), silentLog);
    assert.equal(reg.defaultId, 'builtin/glove-100d');
    assert.deepEqual(reg.list().map((p) => [p.id, p.dimensions]), [
      ['builtin/glove-100d', 100],
      ['builtin/use-lite-512d', 512],
      ['builtin/use-distilled-512d', 512],
    ]);
    assert.throws(() => createEmbeddingRegistry(loadConfig({ ATRIUM_EMBEDDING_MODEL: 'openai/nope' }), silentLog), /not configured/);
    assert.throws(
      () => createEmbeddingRegistry(loadConfig({ ATRIUM_EMBEDDINGS_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', ATRIUM_EMBEDDINGS_OPENAI_MODEL: 'mystery' }), silentLog),
      /ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS/,
    );
  });
});

describe('POST /v1/embeddings and GET /v1/embeddings/models', () => {
  let t: TestApp;
  let query: { authorization: string };
  // An OpenAI-compatible server on loopback, so the remote provider is exercised through the API too.
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const { input } = JSON.parse(raw) as { input: string[] };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: input.map((s, index) => ({ index, embedding: [s.length, 1] })) }));
    });
  });

  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    t = await createTestApp({
      env: {
        ATRIUM_EMBEDDINGS_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
        ATRIUM_EMBEDDINGS_OPENAI_MODEL: 'tiny-remote',
        ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS: '2',
        ATRIUM_EMBEDDINGS_OPENAI_API_KEY: 'sk-never-logged',
      },
    });
    query = { authorization: (await t.keyWith(['query'])).authorization };
  });
  after(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('lists the models with their provider, size and the default', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/embeddings/models', headers: query });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      models: [
        { id: 'builtin/glove-100d', dimensions: 100, provider: 'builtin', default: true },
        { id: 'builtin/use-lite-512d', dimensions: 512, provider: 'builtin', default: false },
        { id: 'builtin/use-distilled-512d', dimensions: 512, provider: 'builtin', default: false },
        { id: 'openai/tiny-remote', dimensions: 2, provider: 'openai-compatible', default: false },
      ],
    });
    assert.ok(!res.body.includes('sk-never-logged'));
  });

  it('embeds with the default model: the same vectors the index gets from the registry', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: query, payload: { input: ['coffee', 'espresso', 'aircraft'] } });
    assert.equal(res.statusCode, 200);
    const body = res.json() as { model: string; dimensions: number; data: { index: number; embedding: number[] }[] };
    assert.equal(body.model, 'builtin/glove-100d');
    assert.equal(body.dimensions, 100);
    assert.deepEqual(body.data.map((d) => d.index), [0, 1, 2]);
    const [direct] = await t.deps.embeddings!.get('builtin/glove-100d')!.embed(['coffee']);
    assert.deepEqual(body.data[0]!.embedding, Array.from(direct!));
    const [c, e, a] = body.data.map((d) => d.embedding);
    assert.ok(cosine(c!, e!) > cosine(c!, a!));
  });

  it('embeds with a named model', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: query, payload: { input: ['abc'], model: 'openai/tiny-remote' } });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.model, 'openai/tiny-remote');
    const n = Math.hypot(3, 1);
    assert.ok(Math.abs(body.data[0].embedding[0] - 3 / n) < 1e-6);
  });

  it('takes a model by its short name, in any case, as everywhere in the API', async () => {
    for (const model of ['tiny-remote', 'OPENAI/Tiny-Remote']) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: query, payload: { input: ['abc'], model } });
      assert.equal(res.statusCode, 200, model);
      assert.equal(res.json().model, 'openai/tiny-remote');
    }
  });

  it('answers 404 for an unknown model and 400 for bad input, with the error shape', async () => {
    const unknown = await t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: query, payload: { input: ['x'], model: 'builtin/nope' } });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'not_found');
    assert.match(unknown.json().error.message, /builtin\/nope/);
    const bad = [
      { input: [] },
      { input: Array.from({ length: 257 }, () => 'x') },
      { input: ['x'.repeat(32_769)] },
      { input: 'not a list' },
      { input: [42] },
      {},
    ];
    for (const payload of bad) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: query, payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 60));
      assert.equal(res.json().error.code, 'invalid_request');
      assert.match(res.json().error.message, /input/);
    }
    const max = await t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: query, payload: { input: Array.from({ length: 256 }, (_, i) => `text ${i}`) } });
    assert.equal(max.statusCode, 200);
    assert.equal(max.json().data.length, 256);
  });

  it('needs the query permission', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/v1/embeddings/models' });
    assert.equal(none.statusCode, 401);
    const reader = await t.keyWith(['connector:read']);
    for (const [method, url] of [
      ['GET', '/v1/embeddings/models'],
      ['POST', '/v1/embeddings'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization: reader.authorization }, payload: method === 'POST' ? { input: ['x'] } : undefined });
      assert.equal(res.statusCode, 403, url);
      assert.equal(res.json().error.code, 'permission_denied');
    }
  });
});
