import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inferIntent } from './intent.ts';
import { decodeContextTerms, encodeContextTerms, HOP_HEADER, queryRemoteNode } from './remote.ts';
import { normalizeRequest } from './request.ts';

const node = { node_id: 'node_1', name: 'paris', url: 'http://remote.test', created_at: '2026-01-01T00:00:00.000Z', apiKey: 'atr_remote' };
const q = normalizeRequest({ query: 'payment', user_id: 'u', filters: { authors: ['a'] } });
const opts = { intent: inferIntent('payment'), budget: 6, subNodes: null, deadlineMs: 200 };
const item = {
  id: 'doc_1',
  content: 'c',
  source_node: 'jira-1',
  relevance_score: 0.5,
  semantic_similarity: 0.4,
  federation_confidence: 1,
  temporal_status: 'recent',
  is_critical: false,
  suppressed_by_tombstone: false,
  metadata: { title: 't' },
};
const answer = { query_hash: `sha256:${'a'.repeat(64)}`, items: [item], nodes_consulted: ['jira-1'], latency_ms: 3, user_entropy: 0, damping_active: false };

describe('remote node fan-out', () => {
  it('sends the resolved request with the hop header and prefixes what comes back', async () => {
    let sent: { url: string; init: RequestInit } | undefined;
    const fetch = (async (url: string, init: RequestInit) => {
      sent = { url, init };
      return new Response(JSON.stringify(answer), { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    const r = await queryRemoteNode(node, q, { ...opts, fetch });
    assert.equal(sent?.url, 'http://remote.test/v1/federate');
    const headers = sent?.init.headers as Record<string, string>;
    assert.equal(headers.authorization, 'Bearer atr_remote');
    assert.equal(headers[HOP_HEADER], '1');
    const body = JSON.parse(String(sent?.init.body));
    assert.equal(body.max_results, 6);
    assert.deepEqual(body.filters, { authors: ['a'] });
    assert.deepEqual(body.intent_signal, opts.intent);
    assert.ok(r.ok);
    assert.equal(r.items[0]!.source_node, 'paris/jira-1');
    assert.deepEqual(r.consulted, ['paris/jira-1']);
  });

  it('reports HTTP errors, malformed answers and timeouts without throwing', async () => {
    const status = (async () => new Response('{"error":{}}', { status: 401 })) as unknown as typeof fetch;
    const r1 = await queryRemoteNode(node, q, { ...opts, fetch: status });
    assert.deepEqual([r1.ok, !r1.ok && r1.reason], [false, 'error']);
    const junk = (async () => new Response(JSON.stringify({ items: 'no' }), { status: 200 })) as unknown as typeof fetch;
    assert.equal((await queryRemoteNode(node, q, { ...opts, fetch: junk })).ok, false);
    // AbortSignal.timeout's timer does not keep the event loop alive; the fallback timer here does.
    const hang = ((_u: string, init: RequestInit) =>
      new Promise((_resolve, reject) => {
        const fallback = setTimeout(() => reject(new Error('deadline never fired')), 5000);
        init.signal?.addEventListener('abort', () => {
          clearTimeout(fallback);
          reject(init.signal?.reason);
        });
      })) as unknown as typeof fetch;
    const r3 = await queryRemoteNode(node, q, { ...opts, deadlineMs: 20, fetch: hang });
    assert.deepEqual([r3.ok, !r3.ok && r3.reason], [false, 'timeout']);
  });
});

describe('context terms header', () => {
  it('round-trips terms (commas and non-ASCII included), keeps at most 64 and drops malformed parts', () => {
    const terms = ['zeppelin', 'a,b', 'café', 'ünïcode'];
    assert.deepEqual(decodeContextTerms(encodeContextTerms(terms)), terms);
    assert.equal(decodeContextTerms(encodeContextTerms(Array.from({ length: 100 }, (_, i) => `t${i}`))).length, 64);
    assert.deepEqual(decodeContextTerms('ok,%E0%A4%A,fine'), ['ok', 'fine']);
    assert.deepEqual(decodeContextTerms(undefined), []);
  });
});
