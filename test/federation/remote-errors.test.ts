import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/platform/log.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, addDocs } from './fixtures.ts';

const NODE_KEY = 'atr_remote_node_key_that_must_not_leak_42';

/** A remote "node" that answers every request 502 with the credential it was sent echoed in an Atrium error body. */
async function startEchoingNode() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'bad_gateway', message: `upstream refused ${req.headers.authorization ?? ''} (key ${NODE_KEY})` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a remote node that echoes its API key in an error', () => {
  let t: TestApp;
  let node: Awaited<ReturnType<typeof startEchoingNode>>;
  const logged: string[] = [];
  before(async () => {
    node = await startEchoingNode();
    const destination = new Writable({
      write(chunk, _enc, done) {
        logged.push(String(chunk));
        done();
      },
    });
    t = await createTestApp({ env: { ATRIUM_FEDERATION_CACHE_TTL_MS: '0' }, log: createLogger({ level: 'debug', destination }) });
    await addConnector(t, 'github-a', 'github');
    await addDocs(t, 'github-a', [{ external_id: 'a1', title: 'Payment service design', content: 'payment gateway design' }]);
    const reg = await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: { name: 'echo', url: node.url, api_key: NODE_KEY } });
    assert.equal(reg.statusCode, 201, reg.body);
  });
  after(async () => {
    await t.close();
    await node.close();
  });

  const federate = (headers: Record<string, string>, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/federate', headers, payload });

  it('admins see the node’s message with the key masked, in nodes_failed and in federation_failed', async () => {
    const partial = await federate(t.admin, { query: 'payment', user_id: 'u1', include_reasoning: true });
    assert.equal(partial.statusCode, 200, partial.body);
    const failed = partial.json().reasoning.nodes_failed;
    assert.deepEqual(failed.map((f: { node: string }) => f.node), ['echo']);
    assert.match(failed[0].reason, /^HTTP 502: upstream refused Bearer \*\*\* \(key \*\*\*\)$/);
    const only = await federate(t.admin, { query: 'payment', user_id: 'u1', node_ids: ['echo'] });
    assert.equal(only.statusCode, 500, only.body);
    assert.equal(only.json().error.code, 'federation_failed');
    assert.match(only.json().error.message, /echo: HTTP 502: upstream refused Bearer \*\*\*/);
    assert.ok(!partial.body.includes(NODE_KEY) && !only.body.includes(NODE_KEY));
  });

  it('other callers get the node’s name and status only', async () => {
    const querier = await t.keyWith(['query']);
    const partial = await federate(querier, { query: 'payment', user_id: 'u2', include_reasoning: true });
    assert.equal(partial.statusCode, 200, partial.body);
    assert.deepEqual(partial.json().reasoning.nodes_failed, [{ node: 'echo', reason: 'HTTP 502' }]);
    const only = await federate(querier, { query: 'payment', user_id: 'u2', node_ids: ['echo'] });
    assert.equal(only.statusCode, 500);
    assert.equal(only.json().error.message, 'federation failed: no selected node answered (echo: HTTP 502)');
  });

  it('logs and audit rows never hold the key', async () => {
    await t.deps.federation?.activity.flush(t.db);
    const audit = await t.db.query('SELECT details FROM audit_events');
    assert.ok(!JSON.stringify(audit.rows).includes(NODE_KEY), 'audit');
    const log = logged.join('');
    assert.match(log, /remote node left out of the federated answer/);
    assert.ok(!log.includes(NODE_KEY), 'log');
  });
});
