import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CRITICAL_FIRST_HEADER, HOP_HEADER } from '../../src/federation/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, addDocs, daysAgo } from './fixtures.ts';

/** Two real Atrium instances on loopback ports, plus a node that never answers in time. */
describe('federation across Atrium instances', () => {
  let a: TestApp;
  let b: TestApp;
  let slow: http.Server;
  let slowUrl = '';
  const pending = new Set<http.ServerResponse>();
  const federate = (payload: Record<string, unknown>, url = '/v1/federate') => a.app.inject({ method: 'POST', url, headers: a.admin, payload });

  before(async () => {
    const env = { ATRIUM_FEDERATION_DEADLINE_MS: '1500', ATRIUM_RATE_LIMIT_BURST: '1000' };
    [a, b] = await Promise.all([createTestApp({ env }), createTestApp({ env })]);
    await addConnector(a, 'github-a', 'github');
    await addDocs(a, 'github-a', [{ external_id: 'a1', title: 'Payment service design', content: 'payment gateway design', updated_at: daysAgo(1) }]);
    await addConnector(b, 'jira-b', 'jira');
    await addDocs(b, 'jira-b', [{ external_id: 'b1', title: 'Payment incident follow-up', content: 'payment timeout follow-up tasks', document_type: 'task', author: 'zoe' }]);
    const bAddr = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const bKey = await b.keyWith(['query']);
    slow = http.createServer((_req, res) => {
      pending.add(res); // answers only when the test ends: always past the deadline
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const reg = await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'paris', url: bAddr, api_key: bKey.authorization.slice(7) } });
    assert.equal(reg.statusCode, 201);
  });
  after(async () => {
    for (const res of pending) res.destroy();
    slow.closeAllConnections();
    await new Promise((resolve) => slow.close(resolve));
    await Promise.all([a.close(), b.close()]);
  });

  it('merges a remote node’s items with its source_node prefixed by the node name', async () => {
    const res = await federate({ query: 'payment', user_id: 'u1' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.nodes_consulted, ['github-a', 'paris/jira-b']);
    const remote = body.items.find((i: { source_node: string }) => i.source_node === 'paris/jira-b');
    assert.ok(remote, 'remote item merged');
    assert.equal(remote.metadata.title, 'Payment incident follow-up');
    assert.equal(remote.metadata.remote_node, 'paris');
    assert.ok(body.items.some((i: { source_node: string }) => i.source_node === 'github-a'));
    // B answered as a hop: its audit shows it, and it recorded no activity for the user.
    await b.deps.federation?.activity.flush(b.db);
    const bActivity = await b.db.query('SELECT count(*)::int AS n FROM federation_activity');
    assert.equal(bActivity.rows[0]?.n, 0);
  });

  it('restricts to a remote node, or one of its sources, through node_ids', async () => {
    const only = (await federate({ query: 'payment', user_id: 'u2', node_ids: ['paris'] })).json();
    assert.deepEqual(only.nodes_consulted, ['paris/jira-b']);
    assert.ok(only.items.every((i: { source_node: string }) => i.source_node.startsWith('paris/')));
    const sub = (await federate({ query: 'payment', user_id: 'u2', node_ids: ['paris/jira-b'] })).json();
    assert.deepEqual(sub.nodes_consulted, ['paris/jira-b']);
  });

  it('answers 400 when a remote node rejects the sources named, and 500 when every selected node fails', async () => {
    const unknown = await federate({ query: 'payment', user_id: 'u7', node_ids: ['github-a', 'paris/nope'] });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error.code, 'invalid_request');
    assert.match(unknown.json().error.message, /paris: .*nope/);
    // A node registered with a key it does not accept answers 401 at once: not a timeout.
    const bUrl = (await a.app.inject({ method: 'GET', url: '/v1/nodes', headers: a.admin })).json().nodes.find((n: { node_id: string }) => n.node_id === 'paris').url;
    const reg = await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'revoked', url: bUrl, api_key: 'atr_not_a_key_of_b_0000' } });
    assert.equal(reg.statusCode, 201);
    assert.equal(reg.json().node_id, 'revoked', 'POST answers the id node_ids and GET /v1/nodes use');
    const failed = await federate({ query: 'payment', user_id: 'u7', node_ids: ['revoked'] });
    assert.equal(failed.statusCode, 500);
    assert.equal(failed.json().error.code, 'federation_failed');
    assert.match(failed.json().error.message, /revoked: HTTP 401/);
    const partial = (await federate({ query: 'payment', user_id: 'u7', node_ids: ['github-a', 'revoked'], include_reasoning: true })).json();
    assert.deepEqual(partial.nodes_consulted, ['github-a']);
    assert.deepEqual(partial.reasoning.nodes_failed.map((f: { node: string }) => f.node), ['revoked']);
    assert.equal((await a.app.inject({ method: 'DELETE', url: '/v1/nodes/revoked', headers: a.admin })).statusCode, 200);
  });

  it('never serves a remote node’s items from its own cache: a change or forget on the remote shows at once', async () => {
    const ask = async () => (await federate({ query: 'refund ledger', user_id: 'u8', include_reasoning: true })).json();
    type Item = { metadata: { title: string }; suppressed_by_tombstone: boolean };
    const ledger = (body: { items: Item[] }) => body.items.find((i) => i.metadata.title === 'Refund ledger');
    assert.equal(ledger(await ask()), undefined);
    await addDocs(b, 'jira-b', [{ external_id: 'b2', title: 'Refund ledger', content: 'refund ledger reconciliation' }]);
    const second = await ask();
    assert.equal(second.reasoning.cache, 'hit', 'the local part still comes from the cache');
    assert.equal(ledger(second)?.suppressed_by_tombstone, false);
    const forget = await b.app.inject({ method: 'POST', url: '/v1/forget', headers: b.admin, payload: { connector_id: 'jira-b', external_ids: ['b2'] } });
    assert.equal(forget.statusCode, 201);
    assert.equal(ledger(await ask())?.suppressed_by_tombstone, true);
  });

  it('puts critical items first on a node asked by a damping origin (critical-first header)', async () => {
    await addDocs(b, 'jira-b', [{ external_id: 'b3', title: 'Payment gateway payment', content: 'payment payment gateway payment notes' }]);
    const hop = async (criticalFirst: boolean) => {
      const headers = { ...b.admin, [HOP_HEADER]: '1', ...(criticalFirst ? { [CRITICAL_FIRST_HEADER]: '1' } : {}) };
      const res = await b.app.inject({ method: 'POST', url: '/v1/federate', headers, payload: { query: 'payment gateway', user_id: 'u9', max_results: 1 } });
      return res.json().items.map((i: { metadata: { title: string }; is_critical: boolean }) => [i.metadata.title, i.is_critical]);
    };
    assert.deepEqual(await hop(false), [['Payment gateway payment', false]]);
    assert.deepEqual(await hop(true), [['Payment incident follow-up', true]]);
  });

  it('shows each remote node’s embedding model in GET /v1/nodes, as that node reports it', async () => {
    const bModels = (await b.app.inject({ method: 'GET', url: '/v1/embeddings/models', headers: b.admin })).json().models;
    const bDefault = bModels.find((m: { default: boolean }) => m.default).id;
    assert.ok(bDefault);
    const res = await a.app.inject({ method: 'GET', url: '/v1/nodes', headers: a.admin });
    assert.equal(res.statusCode, 200);
    const paris = res.json().nodes.find((n: { node_id: string }) => n.node_id === 'paris');
    assert.equal(paris.kind, 'remote');
    assert.equal(paris.embedding_model, bDefault);
    assert.equal(paris.embedding_models[0], bDefault);
    assert.equal(paris.status, 'online');
    assert.ok(!JSON.stringify(res.json()).includes('atr_'), 'no key in the listing');
  });

  it('answers partially when one node misses the deadline, 504 when none answers, and /force retries skipped nodes', async () => {
    const reg = await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'slow', url: slowUrl, api_key: 'atr_whatever_key_123' } });
    assert.equal(reg.statusCode, 201);
    const partial = await federate({ query: 'payment', user_id: 'u3', include_reasoning: true });
    assert.equal(partial.statusCode, 200);
    const body = partial.json();
    assert.deepEqual(body.nodes_consulted, ['github-a', 'paris/jira-b']);
    assert.ok(body.latency_ms >= 1400, `waited for the deadline (${body.latency_ms} ms)`);
    assert.deepEqual(
      body.reasoning.nodes_failed.map((f: { node: string }) => f.node),
      ['slow'],
    );

    const none = await federate({ query: 'payment', user_id: 'u4', node_ids: ['slow'] }, '/v1/federate/force');
    assert.equal(none.statusCode, 504);
    assert.equal(none.json().error.code, 'timeout');

    // Recently timed out: a normal query skips it at once (still 504: nothing else selected) …
    const skipped = await federate({ query: 'payment', user_id: 'u5', node_ids: ['slow'], include_reasoning: true });
    assert.equal(skipped.statusCode, 504);
    assert.match(skipped.json().error.message, /skipped/);
    // … while other nodes answer without waiting for it.
    const quick = (await federate({ query: 'payment', user_id: 'u6' })).json();
    assert.deepEqual(quick.nodes_consulted, ['github-a', 'paris/jira-b']);
    assert.ok(quick.latency_ms < 1400, `did not wait for the skipped node (${quick.latency_ms} ms)`);

    // The listing still answers for a node that does not: no model, and why.
    const listed = (await a.app.inject({ method: 'GET', url: '/v1/nodes', headers: a.admin })).json().nodes;
    const slowNode = listed.find((n: { node_id: string }) => n.node_id === 'slow');
    assert.equal(slowNode.embedding_model, null);
    assert.match(slowNode.status, /^unreachable: no answer within 1500 ms/);
    assert.equal(listed.find((n: { node_id: string }) => n.node_id === 'paris').status, 'online');
  });
  const nodesListings = async (t: TestApp) => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    return text
      .split('\n')
      .filter((l) => l.startsWith('atrium_http_requests_total') && l.includes('route="/v1/nodes"') && l.includes('method="GET"'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  };

  it('lists nodes without looping when two instances register each other (the remote lists its own sources only)', async () => {
    const aAddr = await a.app.listen({ port: 0, host: '127.0.0.1' });
    const aKey = await a.keyWith(['query']);
    const bAddr = (await a.app.inject({ method: 'GET', url: '/v1/nodes', headers: a.admin })).json().nodes.find((n: { node_id: string }) => n.node_id === 'paris').url;
    assert.equal((await b.app.inject({ method: 'POST', url: '/v1/nodes', headers: b.admin, payload: { name: 'lyon', url: aAddr, api_key: aKey.authorization.slice(7) } })).statusCode, 201);
    // A new name, so A's one-minute cache of what paris reported does not answer.
    const bKey = await b.keyWith(['query']);
    assert.equal((await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'paris-again', url: bAddr, api_key: bKey.authorization.slice(7) } })).statusCode, 201);
    const [aBefore, bBefore] = [await nodesListings(a), await nodesListings(b)];
    const res = await a.app.inject({ method: 'GET', url: '/v1/nodes', headers: a.admin });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().nodes.find((n: { node_id: string }) => n.node_id === 'paris-again').status, 'online');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await nodesListings(b)) - bBefore, 1, 'B was asked once, for its own sources');
    assert.equal((await nodesListings(a)) - aBefore, 1, 'only the listing itself: B did not ask A back');
    const hop = (await b.app.inject({ method: 'GET', url: '/v1/nodes', headers: { ...b.admin, [HOP_HEADER]: '1' } })).json().nodes;
    assert.ok(hop.every((n: { kind: string }) => n.kind === 'local'));
    await a.app.inject({ method: 'DELETE', url: '/v1/nodes/paris-again', headers: a.admin });
    await b.app.inject({ method: 'DELETE', url: '/v1/nodes/lyon', headers: b.admin });
  });

  it('refuses node URLs with a query, fragment or credentials, and names why a node could not be reached', async () => {
    for (const url of [a.config.publicUrl, 'http://127.0.0.1:8080', 'http://reached.example:8443']) {
      const self = await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: { ...a.admin, host: 'reached.example:8443' }, payload: { name: 'self', url, api_key: 'atr_whatever_key_123' } });
      assert.equal(self.statusCode, 400, `${url}: ${self.body}`);
      assert.match(self.json().error.message, /this instance itself/);
    }
    for (const url of ['http://127.0.0.1:9/?x=1', 'http://127.0.0.1:9/#frag', 'http://user:secretpw@127.0.0.1:9']) {
      const res = await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'bad', url, api_key: 'atr_whatever_key_123' } });
      assert.equal(res.statusCode, 400, url);
      assert.ok(!res.body.includes('secretpw'));
    }
    const dead = http.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((resolve) => dead.close(resolve));
    assert.equal((await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'dead', url: deadUrl, api_key: 'atr_whatever_key_123' } })).statusCode, 201);
    const res = await federate({ query: 'payment', user_id: 'u9', node_ids: ['dead'] }, '/v1/federate/force');
    assert.equal(res.statusCode, 500);
    assert.match(res.json().error.message, /ECONNREFUSED/);
    await a.app.inject({ method: 'DELETE', url: '/v1/nodes/dead', headers: a.admin });
  });

  it('bounds what a remote node may send: body size, item count and passage length', async () => {
    const real = (await b.app.inject({ method: 'POST', url: '/v1/federate', headers: { ...b.admin, [HOP_HEADER]: '1' }, payload: { query: 'payment', user_id: 'x' } })).json();
    assert.ok(real.items.length > 0);
    let mode: 'many' | 'huge' = 'many';
    const rogue = http.createServer((_req, res) => {
      const item = { ...real.items[0], content: 'z'.repeat(20_000) };
      const body = mode === 'many' ? { ...real, items: Array.from({ length: 150 }, (_, i) => ({ ...item, id: `x${i}` })) } : { ...real, padding: 'p'.repeat(6 * 1024 * 1024) };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => rogue.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
      assert.equal((await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name: 'rogue', url, api_key: 'atr_whatever_key_123' } })).statusCode, 201);
      const many = await federate({ query: 'payment', user_id: 'u10', node_ids: ['rogue'], max_results: 5 }, '/v1/federate/force');
      assert.equal(many.statusCode, 200, many.body);
      assert.ok(many.json().items.length <= 5);
      assert.ok(many.json().items.every((i: { content: string }) => i.content.length <= 10_000));
      mode = 'huge';
      const huge = await federate({ query: 'payment', user_id: 'u11', node_ids: ['rogue'], include_reasoning: true }, '/v1/federate/force');
      assert.equal(huge.statusCode, 500, huge.body);
      assert.match(huge.json().error.message, /larger than/);
    } finally {
      await a.app.inject({ method: 'DELETE', url: '/v1/nodes/rogue', headers: a.admin });
      rogue.closeAllConnections();
      await new Promise((resolve) => rogue.close(resolve));
    }
  });
  it('scores context sensitivity on a remote node with the user’s earlier queries, sent by the origin', async () => {
    const doc = { external_id: 'z1', title: 'Zeppelin mooring mast procedure', content: 'zeppelin mooring mast procedure for the ground crew', updated_at: daysAgo(2) };
    await addDocs(a, 'github-a', [doc]);
    await addDocs(b, 'jira-b', [doc]);
    await federate({ query: 'mooring mast', user_id: 'ctx-user' });
    const body = {
      query: 'zeppelin procedure',
      user_id: 'ctx-user',
      include_reasoning: true,
      intent_signal: { urgency: 0, emotional_weight: 0, action_likelihood: 0, social_dimension: 0, context_sensitivity: 1 },
    };
    const res = (await federate(body, '/v1/federate/force')).json();
    const copies = res.items.filter((i: { metadata: { external_id?: string; title: string } }) => i.metadata.title === doc.title);
    const local = copies.find((i: { source_node: string }) => i.source_node === 'github-a');
    const remote = copies.find((i: { source_node: string }) => i.source_node === 'paris/jira-b');
    assert.ok(local && remote, JSON.stringify(res.items.map((i: { source_node: string }) => i.source_node)));
    assert.equal(local.reasoning.intent_fit, 1);
    assert.equal(remote.reasoning.intent_fit, local.reasoning.intent_fit, 'the remote node knew the user’s context');
  });
});

/** An instance reached through a proxy of itself (another address, so the URL check cannot tell). */
describe('a remote node that leads back to the same instance', () => {
  let app: TestApp;
  let proxy: http.Server;
  let proxyUrl = '';
  let forwardTo = '';
  let proxyUp = true;

  before(async () => {
    app = await createTestApp({ env: { ATRIUM_FEDERATION_DEADLINE_MS: '1500', ATRIUM_RATE_LIMIT_BURST: '1000' } });
    await addConnector(app, 'github-self', 'github');
    await addDocs(app, 'github-self', [{ external_id: 's1', title: 'Payment runbook', content: 'payment runbook steps', updated_at: daysAgo(1) }]);
    forwardTo = await app.app.listen({ port: 0, host: '127.0.0.1' });
    proxy = http.createServer((req, res) => {
      if (!proxyUp) {
        req.socket.destroy();
        return;
      }
      const target = new URL(req.url ?? '/', forwardTo);
      const up = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await app.close();
  });

  it('is refused at registration when it answers, and left out of every query when it was registered while down', async () => {
    const key = (await app.keyWith(['query'])).authorization.slice(7);
    const reg = await app.app.inject({ method: 'POST', url: '/v1/nodes', headers: app.admin, payload: { name: 'mirror', url: proxyUrl, api_key: key } });
    assert.equal(reg.statusCode, 400, reg.body);
    assert.match(reg.json().error.message, /leads back to this instance/);

    // Registered while the proxy refused connections: the probe could not tell, so the node is stored.
    proxyUp = false;
    const blind = await app.app.inject({ method: 'POST', url: '/v1/nodes', headers: app.admin, payload: { name: 'mirror', url: proxyUrl, api_key: key } });
    assert.equal(blind.statusCode, 201, blind.body);
    proxyUp = true;
    const res = await app.app.inject({ method: 'POST', url: '/v1/federate/force', headers: app.admin, payload: { query: 'payment runbook', user_id: 'loop-user', include_reasoning: true } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.nodes_consulted, ['github-self'], 'the mirror is left out');
    assert.equal(body.items.length, 1, 'each document once');
    const failed = body.reasoning.nodes_failed.find((f: { node: string }) => f.node === 'mirror');
    assert.match(failed?.reason ?? '', /HTTP 409: this node is the origin of the request/);
    const listed = (await app.app.inject({ method: 'GET', url: '/v1/nodes', headers: app.admin })).json().nodes.find((n: { node_id: string }) => n.node_id === 'mirror');
    assert.match(listed.status, /^unreachable: it leads back to this instance/);
    await app.app.inject({ method: 'DELETE', url: '/v1/nodes/mirror', headers: app.admin });
  });

  it('still federates with another tenant of the same instance', async () => {
    const other = await app.keyWith(['query'], 'other-tenant');
    const reg = await app.app.inject({ method: 'POST', url: '/v1/nodes', headers: app.admin, payload: { name: 'sibling', url: proxyUrl, api_key: other.authorization.slice(7) } });
    assert.equal(reg.statusCode, 201, reg.body);
    const res = await app.app.inject({ method: 'POST', url: '/v1/federate/force', headers: app.admin, payload: { query: 'payment runbook', user_id: 'loop-user', include_reasoning: true } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().reasoning.nodes_failed, [], 'the other tenant answers (with none of this tenant’s documents)');
    await app.app.inject({ method: 'DELETE', url: '/v1/nodes/sibling', headers: app.admin });
  });
});
