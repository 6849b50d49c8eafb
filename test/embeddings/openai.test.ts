import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiProvider } from '../../src/embeddings/index.ts';
import { isAppError } from '../../src/platform/errors.ts';

interface Seen {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly apiKey: string | undefined;
  readonly body: { model: string; input: string[]; dimensions?: number; encoding_format?: string };
}

/** A local server speaking the OpenAI /v1/embeddings wire format, with scripted failures. */
function fakeOpenAi() {
  const seen: Seen[] = [];
  const script: ((res: http.ServerResponse) => boolean)[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const body = JSON.parse(raw) as Seen['body'];
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization, apiKey: req.headers['api-key'] as string | undefined, body });
      const step = script.shift();
      if (step?.(res)) return;
      // Deterministic 3-d vectors (not normalized, to check the provider normalizes): [len, vowels, 1].
      // Answered in reverse order: clients must sort by `index`.
      const data = body.input
        .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, (text.match(/[aeiou]/g) ?? []).length, 1] }))
        .reverse();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  return { server, seen, script };
}

const fail = (status: number, headers: Record<string, string> = {}, body = { error: { message: `boom ${status}`, type: 'server_error' } }) =>
  (res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
    return true;
  };

describe('openai-compatible embedding provider against a local fake server', () => {
  const fake = fakeOpenAi();
  let baseUrl = '';
  const delays: number[] = [];
  const sleep = async (ms: number) => {
    delays.push(ms);
  };

  before(async () => {
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`;
  });
  after(() => {
    fake.server.closeAllConnections();
    return new Promise<void>((r) => fake.server.close(() => r()));
  });
  beforeEach(() => {
    fake.seen.length = 0;
    fake.script.length = 0;
    delays.length = 0;
  });

  it('batches inputs, sends the model and key, sorts by index and normalizes', async () => {
    const p = createOpenAiProvider({ baseUrl, model: 'text-embedding-3-small', apiKey: 'sk-test', dimensions: 3, batchSize: 2, sleep });
    assert.equal(p.id, 'openai/text-embedding-3-small');
    const texts = ['aaa', 'bb', 'c', 'dddd', 'eeeee'];
    const vectors = await p.embed(texts);
    assert.equal(vectors.length, 5);
    assert.deepEqual(fake.seen.map((s) => s.body.input), [['aaa', 'bb'], ['c', 'dddd'], ['eeeee']]);
    assert.equal(fake.seen[0]!.path, '/v1/embeddings');
    assert.equal(fake.seen[0]!.authorization, 'Bearer sk-test');
    assert.equal(fake.seen[0]!.body.model, 'text-embedding-3-small');
    assert.equal(fake.seen[0]!.body.encoding_format, 'float');
    assert.equal(fake.seen[0]!.body.dimensions, undefined, 'dimensions only sent when asked');
    for (const [i, t] of texts.entries()) {
      const v = vectors[i]!;
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-6);
      const raw = [t.length, (t.match(/[aeiou]/g) ?? []).length, 1];
      const n = Math.hypot(...raw);
      for (const [d, x] of raw.entries()) assert.ok(Math.abs(v[d]! - x / n) < 1e-6, `text ${i} dim ${d}`);
    }
  });

  it('waits as long as Retry-After says on 429, then succeeds', async () => {
    fake.script.push(fail(429, { 'retry-after': '2' }), fail(429, { 'retry-after': '1' }));
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep });
    const [v] = await p.embed(['hello']);
    assert.equal(v?.length, 3);
    assert.equal(fake.seen.length, 3);
    assert.deepEqual(delays, [2000, 1000]);
  });

  it('retries a 500 and a 503 with exponential backoff', async () => {
    fake.script.push(fail(500), fail(503));
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep, backoff: { baseMs: 100, maxMs: 10_000 } });
    await p.embed(['x']);
    assert.equal(fake.seen.length, 3);
    assert.equal(delays.length, 2);
    assert.ok(delays[0]! >= 50 && delays[0]! <= 100, `first delay ${delays[0]}`);
    assert.ok(delays[1]! >= 100 && delays[1]! <= 200, `second delay ${delays[1]}`);
  });

  it('gives up after maxRetries with an actionable error naming the status', async () => {
    for (let i = 0; i < 3; i++) fake.script.push(fail(502));
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep, maxRetries: 2 });
    await assert.rejects(p.embed(['x']), (err: unknown) => {
      assert.ok(isAppError(err));
      assert.equal(err.status, 502);
      assert.match(err.message, /HTTP 502 after 3 attempts: boom 502/);
      return true;
    });
    assert.equal(fake.seen.length, 3);
  });

  it('does not retry a 401 and reports the server message', async () => {
    fake.script.push(fail(401, {}, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
    const p = createOpenAiProvider({ baseUrl, model: 'm', apiKey: 'sk-bad', dimensions: 3, sleep });
    await assert.rejects(p.embed(['x']), /HTTP 401: Incorrect API key provided/);
    assert.equal(fake.seen.length, 1);
    assert.deepEqual(delays, []);
  });

  it('times out a hung request and retries it', async () => {
    fake.script.push(() => true); // never answers
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep, timeoutMs: 200 });
    const [v] = await p.embed(['x']);
    assert.equal(v?.length, 3);
    assert.equal(fake.seen.length, 2);
  });

  it('times out a server that sends headers and then stalls, and retries it like any timeout', async () => {
    fake.script.push((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[');
      return true; // the body never ends
    });
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep, timeoutMs: 200 });
    const [v] = await p.embed(['x']);
    assert.equal(v?.length, 3);
    assert.equal(fake.seen.length, 2);
  });

  it('names the network cause, never repeats the key, and marks errors retrying cannot fix', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r)); // nothing listens there now
    const down = createOpenAiProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', dimensions: 3, sleep, maxRetries: 1 });
    await assert.rejects(down.embed(['x']), (err: unknown) => {
      assert.ok(isAppError(err));
      assert.match(err.message, /fetch failed \(.*ECONNREFUSED/);
      assert.equal(err.code, 'embedding_provider_error', 'a network failure may pass');
      return true;
    });
    fake.script.push(fail(401, {}, { error: { message: 'Incorrect API key provided: sk-SECRET-123', type: 'invalid_request_error' } }));
    const echo = createOpenAiProvider({ baseUrl, model: 'm', apiKey: 'sk-SECRET-123', dimensions: 3, sleep });
    await assert.rejects(echo.embed(['x']), (err: unknown) => {
      assert.ok(isAppError(err));
      assert.doesNotMatch(err.message, /sk-SECRET-123/);
      assert.match(err.message, /Incorrect API key provided: \*\*\*/);
      assert.equal(err.code, 'embedding_provider_rejected');
      return true;
    });
    fake.script.push((res) => {
      res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 2, 3] }, { index: 0, embedding: [3, 2, 1] }] }));
      return true;
    });
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep });
    await assert.rejects(p.embed(['a', 'b']), /indexes are not 0..1, each once/);
  });

  it('rejects vectors of the wrong size and malformed bodies', async () => {
    const wrong = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 8, sleep });
    await assert.rejects(wrong.embed(['x']), /expected 8 dimensions, got 3/);
    fake.script.push((res) => {
      res.end('{"hello":"world"}');
      return true;
    });
    const p = createOpenAiProvider({ baseUrl, model: 'm', dimensions: 3, sleep });
    await assert.rejects(p.embed(['x']), /unexpected body/);
  });

  it('speaks Azure: api-key header, deployment URL with api-version, requested dimensions', async () => {
    const p = createOpenAiProvider({
      baseUrl: `${baseUrl.replace(/\/v1$/, '')}/openai/deployments/emb?api-version=2024-02-01`,
      model: 'text-embedding-3-large',
      apiKey: 'azure-key',
      authHeader: 'api-key',
      dimensions: 3,
      requestDimensions: true,
      sleep,
    });
    await p.embed(['x']);
    assert.equal(fake.seen[0]!.path, '/openai/deployments/emb/embeddings?api-version=2024-02-01');
    assert.equal(fake.seen[0]!.apiKey, 'azure-key');
    assert.equal(fake.seen[0]!.authorization, undefined);
    assert.equal(fake.seen[0]!.body.dimensions, 3);
  });

  it('stops when the caller aborts', async () => {
    fake.script.push(fail(429, { 'retry-after': '30' }));
    const controller = new AbortController();
    const p = createOpenAiProvider({
      baseUrl,
      model: 'm',
      dimensions: 3,
      sleep: async (ms, signal) => {
        delays.push(ms);
        controller.abort(new Error('caller gave up'));
        signal?.throwIfAborted();
      },
    });
    await assert.rejects(p.embed(['x'], controller.signal), /caller gave up/);
    assert.equal(fake.seen.length, 1);
  });
});
