import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { registerNode } from '../../src/federation/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, addDocs } from './fixtures.ts';

/** A plain HTTP server that records what it was sent and answers with `answer`. */
async function startServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const KEY = 'atr_remote_node_key_for_egress_tests_01';

describe('egress policy: production mode is detected from DATABASE_URL', () => {
  it('denies private addresses when DATABASE_URL is set, allows them in embedded mode, and either can be overridden', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db.internal/atrium' }).egress.denyPrivate, true);
    assert.equal(loadConfig({}).egress.denyPrivate, false);
    assert.equal(loadConfig({ ATRIUM_EGRESS_DENY_PRIVATE: 'true' }).egress.denyPrivate, true);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db.internal/atrium', ATRIUM_EGRESS_DENY_PRIVATE: 'false' }).egress.denyPrivate, false);
    assert.deepEqual(loadConfig({ ATRIUM_EGRESS_ALLOW: '127.0.0.1, 10.0.0.0/8,*.corp.example' }).egress.allow, ['127.0.0.1', '10.0.0.0/8', '*.corp.example']);
    assert.throws(() => loadConfig({ ATRIUM_EGRESS_ALLOW: '10.0.0.0/40' }), /ATRIUM_EGRESS_ALLOW: '10\.0\.0\.0\/40' is not a CIDR range/);
  });
});

describe('egress policy in production mode', () => {
  let strict: TestApp;
  let allowing: TestApp;
  let b: TestApp;
  let bUrl = '';
  let bKey = '';
  let target: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    target = await startServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    [strict, allowing, b] = await Promise.all([
      createTestApp({ env: { ATRIUM_EGRESS_DENY_PRIVATE: 'true', ATRIUM_FEDERATION_CACHE_TTL_MS: '0' } }),
      createTestApp({ env: { ATRIUM_EGRESS_DENY_PRIVATE: 'true', ATRIUM_EGRESS_ALLOW: '127.0.0.1' } }),
      createTestApp(),
    ]);
    await addConnector(b, 'jira-b', 'jira');
    await addDocs(b, 'jira-b', [{ external_id: 'b1', title: 'Payment incident follow-up', content: 'payment timeout follow-up tasks' }]);
    bUrl = await b.app.listen({ port: 0, host: '127.0.0.1' });
    bKey = (await b.keyWith(['query'])).authorization.slice(7);
  });
  after(async () => {
    await Promise.all([strict.close(), allowing.close(), b.close(), target.close()]);
  });

  it('refuses to register a node on a loopback address, literal or by name, with 400 naming url', async () => {
    for (const url of [target.url, `http://localhost:${target.port}`, 'http://169.254.169.254', 'http://[::1]:8080']) {
      const res = await strict.app.inject({ method: 'POST', url: '/v1/nodes', headers: strict.admin, payload: { name: 'inside', url, api_key: KEY } });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'egress_denied');
      assert.match(res.json().error.message, /^url: .*private, loopback or link-local.*ATRIUM_EGRESS_ALLOW/);
      assert.equal(res.json().error.details.problems[0].path, 'body.url');
    }
    assert.deepEqual((await strict.db.query('SELECT id FROM federation_nodes')).rows, []);
    assert.deepEqual(target.seen, [], 'nothing was sent there');
  });

  it('checks the fan-out too: a node stored before (or resolving elsewhere now) is not called', async () => {
    await addConnector(strict, 'github-a', 'github');
    await addDocs(strict, 'github-a', [{ external_id: 'a1', title: 'Payment service design', content: 'payment gateway design' }]);
    await registerNode(strict.db, strict.deps.secrets, { tenantId: 'default', name: 'legacy', url: target.url, apiKey: KEY, createdBy: 'test', now: new Date() });
    const querier = await strict.keyWith(['query']);
    const res = await strict.app.inject({ method: 'POST', url: '/v1/federate', headers: querier, payload: { query: 'payment', user_id: 'u', include_reasoning: true } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().reasoning.nodes_failed, [{ node: 'legacy', reason: 'egress denied' }]);
    const admin = await strict.app.inject({ method: 'POST', url: '/v1/federate', headers: strict.admin, payload: { query: 'payment', user_id: 'u', include_reasoning: true } });
    assert.match(admin.json().reasoning.nodes_failed[0].reason, /ATRIUM_EGRESS_ALLOW/);
    assert.deepEqual(target.seen, []);
  });

  it('ATRIUM_EGRESS_ALLOW lets the operator federate with a node on an allowed address', async () => {
    const reg = await allowing.app.inject({ method: 'POST', url: '/v1/nodes', headers: allowing.admin, payload: { name: 'paris', url: bUrl, api_key: bKey } });
    assert.equal(reg.statusCode, 201, reg.body);
    const res = await allowing.app.inject({ method: 'POST', url: '/v1/federate', headers: allowing.admin, payload: { query: 'payment', user_id: 'u' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().nodes_consulted, ['paris/jira-b']);
    // 127.0.0.2 is not listed.
    const other = await allowing.app.inject({ method: 'POST', url: '/v1/nodes', headers: allowing.admin, payload: { name: 'other', url: 'http://127.0.0.2:9', api_key: KEY } });
    assert.equal(other.statusCode, 400);
  });

  it('SSO: refuses a SAML idp_sso_url or an OIDC issuer_url on a private address, before fetching anything', async () => {
    const saml = await strict.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: strict.admin,
      payload: { idp_entity_id: 'https://idp.example', idp_sso_url: 'https://10.1.2.3/sso', idp_certificate: 'not checked first' },
    });
    assert.equal(saml.statusCode, 400, saml.body);
    assert.equal(saml.json().error.code, 'sso_egress_denied');
    assert.match(saml.json().error.message, /idp_sso_url: 10\.1\.2\.3 is a private/);
    const oidc = await strict.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/oidc',
      headers: strict.admin,
      payload: { client_id: 'atrium', client_secret: 'secret', issuer_url: target.url },
    });
    assert.equal(oidc.statusCode, 400, oidc.body);
    assert.equal(oidc.json().error.code, 'sso_egress_denied');
    assert.deepEqual(target.seen, [], 'no discovery request was sent');
  });
});

describe('remote nodes and redirects', () => {
  let t: TestApp;
  let elsewhere: Awaited<ReturnType<typeof startServer>>;
  let redirecting: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    elsewhere = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ query_hash: 'sha256:x', items: [], nodes_consulted: ['stolen'], latency_ms: 1, user_entropy: 0, damping_active: false }));
    });
    redirecting = await startServer((req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}${req.url ?? '/'}` });
      res.end();
    });
    t = await createTestApp({ env: { ATRIUM_FEDERATION_CACHE_TTL_MS: '0' } });
  });
  after(async () => {
    await Promise.all([t.close(), elsewhere.close(), redirecting.close()]);
  });

  it('are never followed: the key is not sent on, and the node counts as failed', async () => {
    await addConnector(t, 'github-a', 'github');
    await addDocs(t, 'github-a', [{ external_id: 'a1', title: 'Payment service design', content: 'payment gateway design' }]);
    const reg = await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: { name: 'hop', url: redirecting.url, api_key: KEY } });
    assert.equal(reg.statusCode, 201, reg.body);
    const res = await t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'payment', user_id: 'u', include_reasoning: true } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().nodes_consulted, ['github-a']);
    assert.match(res.json().reasoning.nodes_failed[0].reason, /^HTTP 307/);
    assert.ok(redirecting.seen.length > 0, 'the node itself was asked');
    assert.deepEqual(elsewhere.seen, [], 'nothing reached the redirect target');
  });
});
