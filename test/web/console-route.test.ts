import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { isReservedPath, resolveConsolePath } from '../../src/http/routes/web.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const dist = loadConfig({}).webDir;

describe('web console static route', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('serves index.html at / and for app routes, with a strict CSP and no caching', async () => {
    for (const url of ['/', '/search', '/connectors/github-abc', '/keys?x=1']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /text\/html/);
      assert.match(res.body, /<div id="root"><\/div>/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });

  it('serves hashed assets as immutable, and 404s a missing file with the error shape', async () => {
    const js = readdirSync(path.join(dist, 'assets')).find((f) => f.endsWith('.js'));
    assert.ok(js, 'the console is built (npm run build:web)');
    const res = await t.app.inject({ method: 'GET', url: `/assets/${js}` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /javascript/);
    assert.match(String(res.headers['cache-control']), /immutable/);
    // Pre-compressed copies from the build go to clients that accept them.
    const br = await t.app.inject({ method: 'GET', url: `/assets/${js}`, headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.ok(br.rawPayload.length < res.rawPayload.length / 2, `${br.rawPayload.length} < ${res.rawPayload.length} / 2`);
    const missing = await t.app.inject({ method: 'GET', url: '/assets/nope-123.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'route_not_found');
  });

  it('never shadows /v1 or /metrics', async () => {
    const api = await t.app.inject({ method: 'GET', url: '/v1/definitely-not-a-route' });
    assert.equal(api.statusCode, 404);
    assert.equal(api.json().error.code, 'route_not_found');
    const health = await t.app.inject({ method: 'GET', url: '/v1/health' });
    assert.equal(health.json().status, 'ok');
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /atrium_http_requests|# HELP/);
    const post = await t.app.inject({ method: 'POST', url: '/search' });
    assert.equal(post.statusCode, 404);
  });

  it('does not leak files outside the console root', async () => {
    for (const url of ['/..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2f..%2fpackage.json', '/.env']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.ok(!res.body.includes('"dependencies"'), url);
    }
  });

  it('keeps /v1/openapi.json free of the console routes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    // Every documented path is the API's: /v1, or the OAuth metadata MCP clients read at /.well-known (RFC 8414, 9728).
    assert.ok(!Object.keys(doc.paths).some((p: string) => !p.startsWith('/v1/') && !p.startsWith('/.well-known/oauth-')));
    assert.ok(doc.paths['/v1/me'], '/v1/me is documented');
  });

  it('tells who the caller is at /v1/me', async () => {
    const k = await t.keyWith(['query', 'connector:read']);
    const res = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: k.authorization } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      tenant_id: 'default',
      kind: 'api_key',
      id: k.id,
      user_id: 'test-query+connector:read',
      permissions: ['query', 'connector:read'],
      identity: null,
      // A service key (no person bound): retrieval shows it only what everyone may read.
      view: { acting: false, email: null, idp_groups: [], kind: 'service', vendor_accounts: [], vendor_groups: [], permission_groups: [] },
    });
    const anon = await t.app.inject({ method: 'GET', url: '/v1/me' });
    assert.equal(anon.statusCode, 401);
  });
});

describe('web console not built', () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'atrium-web-'));
    t = await createTestApp({ env: { ATRIUM_WEB_DIR: dir } });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('still starts and explains how to build the console', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 503);
    assert.match(res.body, /npm run build:web/);
    const health = await t.app.inject({ method: 'GET', url: '/v1/health' });
    assert.equal(health.statusCode, 200);
  });
});

describe('console path resolution', () => {
  it('reserves the API and metrics paths', () => {
    assert.ok(isReservedPath('/v1'));
    assert.ok(isReservedPath('/v1/x'));
    assert.ok(isReservedPath('/metrics'));
    assert.ok(!isReservedPath('/v1x'));
    assert.ok(!isReservedPath('/search'));
  });

  it('falls back to index.html for routes, 404s missing files and dot files', () => {
    assert.deepEqual(resolveConsolePath(dist, '/connectors/abc'), { file: 'index.html', immutable: false });
    assert.equal(resolveConsolePath(dist, '/missing.css'), null);
    assert.equal(resolveConsolePath(dist, '/%E0%A4%A'), null);
    assert.deepEqual(resolveConsolePath(dist, '/favicon.svg'), { file: 'favicon.svg', immutable: false });
    assert.equal(resolveConsolePath(dist, '/.git/config'), null);
  });
});
