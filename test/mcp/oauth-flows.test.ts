import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { upsertDocuments } from '../../src/documents/index.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, freePort, requestIdOf } from './oauth-support.ts';
import { addConnector, httpClient } from './support.ts';

const REDIRECT = 'https://client.example.test/oauth/callback';

/** The API-key consent path (a tenant without SSO), and every refusal the authorization server makes. */
describe('MCP OAuth: API-key consent, PKCE, redirect URIs, expiry, revocation, tenants', () => {
  let t: TestApp;
  let base: string;
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  let acmeKey: string;
  let acmeAdmin: { authorization: string };

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ clock, env: { ATRIUM_PUBLIC_URL: base, ATRIUM_RATE_LIMIT_BURST: '100000' } });
    await t.app.listen({ host: '127.0.0.1', port });
    for (const [tenant, text] of [
      ['acme', 'Acme rotation plan: the acme on-call rotation.'],
      ['default', 'Default rotation plan: the default tenant on-call rotation.'],
    ] as const) {
      await addConnector(t, `notion-${tenant}`, tenant, 'notion');
      await upsertDocuments(t.deps, { tenantId: tenant, connectorId: `notion-${tenant}`, documents: [{ external_id: 'plan', title: `${tenant} plan`, content: text }] });
    }
    acmeKey = (await t.keyWith(['query', 'connector:read'], 'acme')).authorization.slice(7);
    acmeAdmin = { authorization: (await t.keyWith(['admin'], 'acme')).authorization };
  });
  after(() => t.close());

  const json = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const form = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });

  async function register(metadata: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string }> {
    const res = await json('/v1/oauth/register', { client_name: 'Claude', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata });
    assert.equal(res.status, 201);
    return res.json();
  }

  function pkce() {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  function authorizeUrl(clientId: string, challenge: string, over: Record<string, string | null> = {}): string {
    const u = new URL('/v1/oauth/authorize', base);
    const params: Record<string, string | null> = {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
      scope: 'mcp',
      resource: `${base}/v1/expose/mcp`,
      ...over,
    };
    for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
    return u.toString();
  }

  /** Consent by pasting `key`; returns the code. */
  async function consentWithKey(clientId: string, challenge: string, key = acmeKey): Promise<string> {
    const browser = new Browser();
    const page = await browser.request(authorizeUrl(clientId, challenge));
    const html = await page.text();
    assert.equal(page.status, 200, html);
    assert.match(html, /<dd id="client-name">Claude<\/dd>/);
    assert.match(html, new RegExp(`<dd id="redirect-uri"><code>${REDIRECT}</code>`));
    const requestId = requestIdOf(html);
    const wrong = await browser.request(`${base}/v1/oauth/authorize/key`, { form: { request_id: requestId, api_key: 'atr_not_a_real_key_000000000000' }, origin: base });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /not valid/);
    const pasted = await browser.request(`${base}/v1/oauth/authorize/key`, { form: { request_id: requestId, api_key: key }, origin: base });
    assert.equal(pasted.status, 303, await pasted.text());
    const consent = await browser.request(new URL(pasted.headers.get('location')!, base).toString());
    const consentHtml = await consent.text();
    assert.match(consentHtml, /API key “test-query\+connector:read”/);
    assert.match(consentHtml, /<li>query: /);
    assert.match(consentHtml, /<li>connector:read: /);
    assert.doesNotMatch(consentHtml, new RegExp(key), 'the key is never echoed');
    const decided = await browser.request(`${base}/v1/oauth/authorize/decision`, { form: { request_id: requestId, decision: 'allow' }, origin: base });
    assert.equal(decided.status, 302);
    const location = new URL(decided.headers.get('location')!);
    assert.equal(location.searchParams.get('state'), 'xyz');
    return location.searchParams.get('code')!;
  }

  async function tokens(clientId: string): Promise<{ access_token: string; refresh_token: string }> {
    const { verifier, challenge } = pkce();
    const code = await consentWithKey(clientId, challenge);
    const res = await form('/v1/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId });
    assert.equal(res.status, 200);
    return res.json();
  }

  it('validates registrations with RFC 7591 errors', async () => {
    const cases: [unknown, string][] = [
      [{ redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['myapp://callback'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://a.example/cb#frag'] }, 'invalid_redirect_uri'],
      [{ client_name: 'x' }, 'invalid_redirect_uri'],
      [{ redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
      [[1, 2], 'invalid_client_metadata'],
    ];
    for (const [body, error] of cases) {
      const res = await json('/v1/oauth/register', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const answer = await res.json();
      assert.equal(answer.error, error, JSON.stringify(body));
      assert.equal(typeof answer.error_description, 'string');
    }
    const notJson = await fetch(`${base}/v1/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    assert.equal((await notJson.json()).error, 'invalid_client_metadata');
    // Loopback http is a native client's listener: accepted. The RFC default method gets a secret, shown once.
    const confidential = await json('/v1/oauth/register', { redirect_uris: ['http://127.0.0.1:7777/cb', 'http://localhost/cb'] });
    assert.equal(confidential.status, 201);
    const body = await confidential.json();
    assert.equal(body.token_endpoint_auth_method, 'client_secret_basic');
    assert.match(body.client_secret, /^mcps_/);
    const stored = await t.db.query<{ client_secret_hash: string }>('SELECT client_secret_hash FROM oauth_clients WHERE id = $1', [body.client_id]);
    assert.notEqual(stored.rows[0]!.client_secret_hash, body.client_secret);
  });

  it('refuses unknown clients and unregistered redirect URIs on the page, and redirects other errors to the client', async () => {
    const c = await register();
    const { challenge } = pkce();
    const unknown = await fetch(authorizeUrl('mcpc_nope', challenge), { redirect: 'manual' });
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /unknown client_id/);
    for (const uri of [`${REDIRECT}/`, 'https://evil.example/oauth/callback', `${REDIRECT}?x=1`]) {
      const res = await fetch(authorizeUrl(c.client_id, challenge, { redirect_uri: uri }), { redirect: 'manual' });
      assert.equal(res.status, 400, uri);
      assert.equal(res.headers.get('location'), null, 'never redirected to an unregistered URI');
      assert.match(await res.text(), /not one this client registered/);
    }
    const redirected: [Record<string, string | null>, string][] = [
      [{ code_challenge: null }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge_method: null }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'admin' }, 'invalid_scope'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
    ];
    for (const [over, error] of redirected) {
      const res = await fetch(authorizeUrl(c.client_id, challenge, over), { redirect: 'manual' });
      assert.equal(res.status, 302, JSON.stringify(over));
      const loc = new URL(res.headers.get('location')!);
      assert.equal(`${loc.origin}${loc.pathname}`, REDIRECT);
      assert.equal(loc.searchParams.get('error'), error, JSON.stringify(over));
      assert.equal(loc.searchParams.get('state'), 'xyz');
    }
  });

  it('API-key consent: PKCE failure and code reuse are refused, the token reads the key tenant’s documents only', async () => {
    const c = await register();
    const { verifier, challenge } = pkce();
    const code = await consentWithKey(c.client_id, challenge);
    const exchange = (over: Record<string, string>) =>
      form('/v1/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: c.client_id, ...over });
    const badPkce = await exchange({ code_verifier: pkce().verifier });
    assert.equal(badPkce.status, 400);
    assert.deepEqual(Object.keys(await badPkce.json()).sort(), ['error', 'error_description']);
    assert.equal((await (await exchange({ redirect_uri: 'https://client.example.test/other' })).json()).error, 'invalid_grant');
    assert.equal((await (await exchange({ code_verifier: 'short' })).json()).error, 'invalid_request');
    const other = await register();
    assert.equal((await (await exchange({ client_id: other.client_id })).json()).error, 'invalid_grant', 'a code is for its own client');
    const ok = await exchange({});
    assert.equal(ok.status, 200);
    const issued = await ok.json();
    assert.equal(issued.token_type, 'Bearer');
    assert.equal(issued.scope, 'mcp');
    // A second use of the code: refused, and the grant it made is revoked (its tokens stop working).
    const again = await exchange({});
    assert.equal((await again.json()).error, 'invalid_grant');
    assert.equal((await fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${issued.access_token}` } })).status, 401);

    const fresh = await tokens(c.client_id);
    const client = await httpClient(base, `Bearer ${fresh.access_token}`);
    try {
      const res = await client.callTool({ name: 'query_knowledge', arguments: { query: 'on-call rotation' } });
      const items = (res.structuredContent as { items: { content: string }[] }).items;
      assert.ok(items.length > 0);
      assert.ok(items.every((i) => /Acme/.test(i.content)), 'tenant acme only, never default’s documents');
      const tools = (await client.listTools()).tools.map((x) => x.name);
      assert.ok(!tools.includes('execute_action'), 'no more than the key’s permissions');
    } finally {
      await client.close();
    }
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.oauth*', headers: acmeAdmin });
    const actions = audit.json().events.map((e: { action: string }) => e.action);
    for (const a of ['mcp.oauth.granted', 'mcp.oauth.token_refused', 'mcp.oauth.revoked']) assert.ok(actions.includes(a), `${a}: ${actions}`);
  });

  it('expired access tokens are refused and refresh; revocation by the client, the person, an admin of the tenant (not of another)', async () => {
    const c = await register();
    const first = await tokens(c.client_id);
    const mcp = (token: string) => fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await mcp(first.access_token)).status, 200);
    // Time only moves forward here (the failed-attempt throttle would see a clock set back as a long block).
    offsetMs += 3601_000;
    {
      const expired = await mcp(first.access_token);
      assert.equal(expired.status, 401);
      assert.match(expired.headers.get('www-authenticate')!, /error="invalid_token"/);
      const refreshed = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.client_id });
      assert.equal(refreshed.status, 200);
      const second = await refreshed.json();
      assert.equal((await mcp(second.access_token)).status, 200);

      // The key's holder sees and revokes their grant; another tenant's admin cannot even see it.
      const mine = await t.app.inject({ method: 'GET', url: '/v1/oauth/grants', headers: { authorization: `Bearer ${acmeKey}` } });
      assert.equal(mine.statusCode, 200);
      const grant = mine.json().grants.find((g: { client_id: string }) => g.client_id === c.client_id);
      assert.equal(grant.subject.kind, 'api_key');
      assert.deepEqual(grant.permissions, ['connector:read', 'query']);
      const defaultAdmin = await t.app.inject({ method: 'GET', url: '/v1/oauth/grants', headers: t.admin });
      assert.ok(!defaultAdmin.json().grants.some((g: { grant_id: string }) => g.grant_id === grant.grant_id));
      const crossTenant = await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.grant_id}`, headers: t.admin });
      assert.equal(crossTenant.statusCode, 404);
      assert.equal((await mcp(second.access_token)).status, 200, 'still valid after the refused cross-tenant revoke');
      const adminList = await t.app.inject({ method: 'GET', url: '/v1/oauth/grants', headers: acmeAdmin });
      assert.ok(adminList.json().grants.some((g: { grant_id: string }) => g.grant_id === grant.grant_id), 'an admin lists the tenant’s grants');
      const revoked = await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.grant_id}`, headers: acmeAdmin });
      assert.equal(revoked.statusCode, 204);
      assert.equal((await mcp(second.access_token)).status, 401);
      const refreshAfter = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: c.client_id });
      assert.equal((await refreshAfter.json()).error, 'invalid_grant');
    }

    // RFC 7009 from the client: the token's grant ends; unknown tokens answer 200 too.
    const third = await tokens(c.client_id);
    assert.equal((await form('/v1/oauth/revoke', { token: third.refresh_token, client_id: c.client_id })).status, 200);
    assert.equal((await mcp(third.access_token)).status, 401);
    assert.equal((await form('/v1/oauth/revoke', { token: 'mcp_rt_unknown', client_id: c.client_id })).status, 200);
  });

  it('token endpoint refusals use RFC 6749 error JSON; revoking the API key ends its grants', async () => {
    const c = await register();
    const wrongType = await fetch(`${base}/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"authorization_code"}' });
    assert.equal((await wrongType.json()).error, 'invalid_request');
    assert.equal((await (await form('/v1/oauth/token', { grant_type: 'password', client_id: c.client_id })).json()).error, 'unsupported_grant_type');
    const unknownClient = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'mcpc_nope' });
    assert.equal(unknownClient.status, 401);
    assert.equal((await unknownClient.json()).error, 'invalid_client');
    const secretForPublic = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: c.client_id, client_secret: 'guess' });
    assert.equal(secretForPublic.status, 401);
    const confidential = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const noSecret = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: confidential.client_id });
    assert.equal(noSecret.status, 401);
    const basic = `Basic ${Buffer.from(`${confidential.client_id}:${confidential.client_secret}`).toString('base64')}`;
    const withSecret = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: 'mcp_rt_unknown' }, { authorization: basic });
    assert.equal(withSecret.status, 400, 'authenticated; the refresh token is what is wrong');
    assert.equal((await withSecret.json()).error, 'invalid_grant');

    const k = await t.keyWith(['query', 'connector:read'], 'acme');
    const { verifier, challenge } = pkce();
    const code = await consentWithKey(c.client_id, challenge, k.authorization.slice(7));
    const issued = await (await form('/v1/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: c.client_id })).json();
    assert.equal((await fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${issued.access_token}` } })).status, 200);
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/api-keys/${k.id}`, headers: acmeAdmin });
    assert.ok(del.statusCode < 300, del.body);
    assert.equal((await fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${issued.access_token}` } })).status, 401);
    const refresh = await form('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: c.client_id });
    assert.match((await refresh.json()).error_description, /api_key_revoked/);
  });

  it('a denial goes back to the client as access_denied; API keys as Bearer keep working on MCP', async () => {
    const c = await register();
    const browser = new Browser();
    const page = await browser.request(authorizeUrl(c.client_id, pkce().challenge));
    const requestId = requestIdOf(await page.text());
    const denied = await browser.request(`${base}/v1/oauth/authorize/decision`, { form: { request_id: requestId, decision: 'deny' }, origin: base });
    assert.equal(denied.status, 302);
    assert.equal(new URL(denied.headers.get('location')!).searchParams.get('error'), 'access_denied');
    // Another browser (no binding cookie) cannot act on the request.
    const stranger = await new Browser().request(`${base}/v1/oauth/authorize/decision`, { form: { request_id: requestId, decision: 'allow' }, origin: base });
    assert.equal(stranger.status, 400);
    const client = await httpClient(base, `Bearer ${acmeKey}`);
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();
  });
});
