import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { upsertDocuments } from '../../src/documents/index.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { b64, generateIdpKeys, type IdpKeys, readAuthnRequest, responseXml, sign } from '../sso/saml-idp.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector } from './support.ts';
import { Browser, freePort, MemoryOAuthProvider, requestIdOf } from './oauth-support.ts';

const IDP = 'https://idp.example.test/saml';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const REDIRECT = 'http://127.0.0.1:53682/callback';

describe('OAuth sign-in for remote MCP clients', () => {
  let t: TestApp;
  let base: string;
  let mcpUrl: URL;
  let keys: IdpKeys;
  let idpServer: http.Server;
  const clock: Clock = { now: () => new Date() };

  before(async () => {
    keys = await generateIdpKeys();
    idpServer = http.createServer((_req, res) => res.end('idp'));
    await new Promise<void>((r) => idpServer.listen(0, '127.0.0.1', r));
    const idpUrl = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}/sso`;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    mcpUrl = new URL('/v1/expose/mcp', base);
    t = await createTestApp({ clock, env: { ATRIUM_PUBLIC_URL: base, ATRIUM_RATE_LIMIT_BURST: '100000' } });
    await t.app.listen({ host: '127.0.0.1', port });
    const saml = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: t.admin,
      payload: { idp_entity_id: IDP, idp_sso_url: idpUrl, idp_certificate: keys.certPem, attribute_mapping: { groups: 'memberOf' } },
    });
    assert.equal(saml.statusCode, 200, saml.body);
    await t.app.inject({ method: 'PUT', url: '/v1/auth/sso/group-mapping', headers: t.admin, payload: { group_mapping: { engineering: 'member' } } });
    await addConnector(t, 'notion-a1', 'default', 'notion');
    await upsertDocuments(t.deps, {
      tenantId: 'default',
      connectorId: 'notion-a1',
      documents: [
        { external_id: 'ada', title: 'Ada rotation notes', content: 'The payments on-call rotation handbook, for Ada only.', acl: { users: ['ada@example.com'] } },
        { external_id: 'bob', title: 'Bob rotation notes', content: 'The payments on-call rotation secrets, for Bob only.', acl: { users: ['bob@example.com'] } },
      ],
    });
    // A second tenant without SSO: its people connect by pasting an API key once.
    await addConnector(t, 'notion-b1', 'acme', 'notion');
    await upsertDocuments(t.deps, {
      tenantId: 'acme',
      connectorId: 'notion-b1',
      documents: [{ external_id: 'acme', title: 'Acme rotation plan', content: 'The acme on-call rotation plan.' }],
    });
  });
  after(async () => {
    await t.close();
    await new Promise((r) => idpServer.close(r));
  });

  /** The IdP's signed answer to the AuthnRequest in `location`, for ada@example.com. */
  function samlResponse(location: string): string {
    const req = readAuthnRequest(location);
    const id = Math.random().toString(36).slice(2);
    const acs = `${base}/v1/auth/saml/callback`;
    return b64(
      sign(
        responseXml({
          issuer: IDP,
          destination: acs,
          recipient: acs,
          audience: base,
          inResponseTo: req.id,
          nameId: 'ada@example.com',
          attributes: { email: 'ada@example.com', displayName: 'Ada Lovelace', memberOf: ['engineering'] },
          now: clock.now(),
          notBeforeOffsetMs: -60_000,
          notOnOrAfterOffsetMs: 5 * 60_000,
          status: SUCCESS,
          assertionId: `_a${id}`,
          responseId: `_r${id}`,
        }),
        keys,
      ),
    );
  }

  /** A person in a browser: the consent page, SSO at the (test) IdP, back to consent, Allow. Returns the redirect. */
  async function signInWithSaml(browser: Browser, authorizationUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
    const page = await browser.request(authorizationUrl);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /SDK Test Client|Claude/);
    const requestId = requestIdOf(html);
    const sso = await browser.request(`${base}/v1/oauth/authorize/sso?request_id=${requestId}&tenant_id=default`);
    assert.equal(sso.status, 302, await sso.text());
    const login = await browser.request(new URL(sso.headers.get('location')!, base).toString());
    assert.equal(login.status, 302);
    const callback = await browser.request(`${base}/v1/auth/saml/callback`, {
      form: { SAMLResponse: samlResponse(login.headers.get('location')!), RelayState: 'default' },
    });
    assert.equal(callback.status, 302, await callback.text());
    assert.equal(callback.headers.get('location'), `${base}/v1/oauth/authorize/resume?request_id=${requestId}`);
    const consent = await browser.request(callback.headers.get('location')!);
    const consentHtml = await consent.text();
    assert.equal(consent.status, 200, consentHtml);
    assert.match(consentHtml, /Signed in as<\/dt><dd id="subject">ada@example.com/);
    assert.match(consentHtml, /query: search and read/);
    assert.doesNotMatch(consentHtml, /admin:/, 'a member is not offered admin');
    assert.match(String(consent.headers.get('content-security-policy')), /frame-ancestors 'none'/);
    const decided = await browser.request(`${base}/v1/oauth/authorize/decision`, { form: { request_id: requestId, decision }, origin: base });
    assert.equal(decided.status, 302, await decided.text());
    return new URL(decided.headers.get('location')!);
  }

  it('publishes RFC 9728 / RFC 8414 metadata and challenges an unauthenticated MCP call', async () => {
    const res = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate')!;
    assert.match(challenge, new RegExp(`^Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/v1/expose/mcp"`));
    const bad = await fetch(mcpUrl, { method: 'POST', headers: { authorization: 'Bearer mcp_at_nope', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate')!, /error="invalid_token"/);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1/expose/mcp']) {
      const prm = await (await fetch(`${base}${path}`)).json();
      assert.equal(prm.resource, `${base}/v1/expose/mcp`);
      assert.deepEqual(prm.authorization_servers, [base]);
    }
    const as = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.equal(as.issuer, base);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.equal(as.registration_endpoint, `${base}/v1/oauth/register`);
    assert.equal(as.revocation_endpoint, `${base}/v1/oauth/revoke`);
  });

  it('the official SDK client completes the flow with a SAML-signed-in user and queries as that person; refresh rotates', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT);
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.info?.client_id.startsWith('mcpc_'), 'registered dynamically');
    const authUrl = provider.authorizationUrl!;
    assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authUrl.searchParams.get('resource'), `${base}/v1/expose/mcp`);

    const redirected = await signInWithSaml(new Browser(), authUrl.toString());
    assert.equal(`${redirected.origin}${redirected.pathname}`, REDIRECT);
    assert.equal(redirected.searchParams.get('state'), provider.lastState);
    const code = redirected.searchParams.get('code')!;
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(code);
    assert.ok(provider.saved?.access_token.startsWith('mcp_at_'));
    assert.equal(provider.saved?.expires_in, 3600);

    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    try {
      const res = await client.callTool({ name: 'query_knowledge', arguments: { query: 'payments on-call rotation' } });
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      const items = (res.structuredContent as { items: { content: string }[] }).items;
      assert.equal(items.length, 1, JSON.stringify(items));
      assert.match(items[0]!.content, /for Ada only/, 'the token reads as Ada: her document, not Bob’s');
    } finally {
      await client.close();
    }

    // The token answers as Ada everywhere MCP is served, and nowhere else.
    const access = provider.saved!.access_token;
    const tools = await fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${access}` } });
    assert.equal(tools.status, 200);
    assert.equal((await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${access}` } })).status, 401, 'audience: the MCP endpoint only');

    // Refresh with rotation: the new refresh token works once, the old one is refused and revokes the grant.
    const token = async (form: Record<string, string>) =>
      fetch(`${base}/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: provider.info!.client_id, ...form }) });
    const oldRefresh = provider.saved!.refresh_token!;
    const r1 = await token({ grant_type: 'refresh_token', refresh_token: oldRefresh });
    assert.equal(r1.status, 200);
    const fresh = await r1.json();
    assert.notEqual(fresh.refresh_token, oldRefresh);
    assert.equal(r1.headers.get('cache-control'), 'no-store');
    const reused = await token({ grant_type: 'refresh_token', refresh_token: oldRefresh });
    assert.equal(reused.status, 400);
    assert.equal((await reused.json()).error, 'invalid_grant');
    const afterReuse = await token({ grant_type: 'refresh_token', refresh_token: fresh.refresh_token });
    assert.equal((await afterReuse.json()).error, 'invalid_grant', 'reuse revoked the whole grant');
    assert.equal((await fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${fresh.access_token}` } })).status, 401);

    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.oauth*', headers: t.admin });
    const actions = audit.json().events.map((e: { action: string }) => e.action);
    for (const a of ['mcp.oauth.granted', 'mcp.oauth.refresh_failed', 'mcp.oauth.revoked']) assert.ok(actions.includes(a), `${a} audited: ${actions}`);
    const stored = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM oauth_tokens');
    assert.ok(stored.rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash) && r.token_hash !== fresh.access_token), 'tokens stored hashed');
  });

  it('a tenant with SSO signs in through it: a pasted key of that tenant is refused; the grant is listed for the person and revocable', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, { client_name: 'Claude' });
    await assert.rejects(new Client({ name: 'x', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })), UnauthorizedError);
    const browser = new Browser();
    const page = await browser.request(provider.authorizationUrl!.toString());
    const requestId = requestIdOf(await page.text());
    const member = await t.keyWith(['query']);
    const pasted = await browser.request(`${base}/v1/oauth/authorize/key`, { form: { request_id: requestId, api_key: member.authorization.slice(7) }, origin: base });
    assert.equal(pasted.status, 403);
    assert.match(await pasted.text(), /uses single sign-on/);
    const crossSite = await browser.request(`${base}/v1/oauth/authorize/decision`, { form: { request_id: requestId, decision: 'allow' }, origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403, 'a form posted from another origin is refused');

    const redirected = await signInWithSaml(browser, provider.authorizationUrl!.toString());
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(redirected.searchParams.get('code')!);
    // Ada's console session (the SSO cookie) lists her grant and revokes it.
    const session = browser.cookieHeader(`${base}/v1/oauth/grants`);
    const list = await t.app.inject({ method: 'GET', url: '/v1/oauth/grants', headers: { cookie: session } });
    assert.equal(list.statusCode, 200, list.body);
    const grants = list.json().grants as { grant_id: string; client_name: string; subject: { kind: string; email: string } }[];
    const grant = grants.find((g) => g.client_name === 'Claude')!;
    assert.deepEqual(grant.subject.kind, 'user');
    assert.equal(grant.subject.email, 'ada@example.com');
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.grant_id}`, headers: { cookie: session, origin: base } });
    assert.equal(del.statusCode, 204, del.body);
    const after = await fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    assert.equal(after.status, 401);
  });
});
