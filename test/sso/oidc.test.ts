import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { signInAtIdp, startOidcProvider, type TestOidcProvider } from './oidc-idp.ts';

const PUBLIC = 'http://127.0.0.1:8080';
const CALLBACK = `${PUBLIC}/v1/auth/oidc/callback`;
const CLIENT_ID = 'atrium-test-client';
const CLIENT_SECRET = 'oidc-client-secret-7f3a9c1e5b2d4a6f8e0c';

describe('OIDC single sign-on against a real OpenID Provider', () => {
  let t: TestApp;
  let idp: TestOidcProvider;
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

  before(async () => {
    idp = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: CALLBACK,
      accounts: {
        alice: { email: 'Alice@Example.com', name: 'Alice Admin', groups: ['atrium-admins'] },
        bob: { email: 'bob@example.com', name: 'Bob', groups: ['readers'] },
        eve: { email: 'eve@example.com', email_verified: false },
      },
    });
    t = await createTestApp({ clock, env: { ATRIUM_RATE_LIMIT_BURST: '100000' } });
    const map = await t.app.inject({
      method: 'PUT',
      url: '/v1/auth/sso/group-mapping',
      headers: t.admin,
      payload: { group_mapping: { 'atrium-admins': 'admin', readers: 'viewer' }, default_role: 'member' },
    });
    assert.equal(map.statusCode, 200, map.body);
  });
  after(async () => {
    await t.close();
    await idp.close();
  });

  async function configure() {
    return t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/oidc',
      headers: t.admin,
      payload: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, issuer_url: idp.issuer, scopes: ['openid', 'profile', 'email', 'groups'] },
    });
  }

  /** GET /v1/auth/sso/login, then the IdP's pages; returns the callback URL and the flow cookie. */
  async function signIn(account: string): Promise<{ callback: URL; flowCookie: string; authorize: URL }> {
    const start = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    assert.equal(start.statusCode, 302, start.body);
    const authorize = new URL(String(start.headers.location));
    const flow = ([] as string[]).concat((start.headers['set-cookie'] as string | string[] | undefined) ?? []).find((c) => c.startsWith('atrium_sso_flow='));
    assert.ok(flow, 'the flow cookie binds the sign-in to this browser');
    const callback = await signInAtIdp(authorize.href, account, CALLBACK);
    return { callback, flowCookie: flow.split(';')[0]!, authorize };
  }

  function callback(url: URL, cookie?: string) {
    return t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: cookie ? { cookie } : {} });
  }

  it('validates discovery when saving, stores the client secret encrypted and never returns it', async () => {
    const res = await configure();
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().active_provider, 'oidc');
    assert.equal(res.json().oidc.client_secret_set, true);
    assert.equal(res.json().service_provider.oidc_redirect_uri, CALLBACK);
    assert.ok(!res.body.includes(CLIENT_SECRET));
    const stored = await t.db.query<{ oidc_client_secret_enc: string; oidc: unknown }>("SELECT oidc_client_secret_enc, oidc FROM sso_configs WHERE tenant_id = 'default'");
    const row = stored.rows[0]!;
    assert.match(row.oidc_client_secret_enc, /^v1:/);
    assert.ok(!JSON.stringify(row).includes(CLIENT_SECRET));
    const view = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/config', headers: t.admin });
    assert.ok(!view.body.includes(CLIENT_SECRET));
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso*', headers: t.admin });
    assert.ok(!audit.body.includes(CLIENT_SECRET));
    const status = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status', headers: t.admin });
    assert.deepEqual(status.json(), { enabled: true, provider_type: 'oidc', provider_name: idp.issuer, last_login: null });
  });

  it('refuses an unreachable issuer, a missing required scope and a non-https remote issuer', async () => {
    const base = { client_id: 'x', client_secret: 'y' };
    const dead = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/oidc', headers: t.admin, payload: { ...base, issuer_url: 'http://127.0.0.1:9/' } });
    assert.equal(dead.statusCode, 400);
    assert.equal(dead.json().error.code, 'oidc_discovery_failed');
    const insecure = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/oidc', headers: t.admin, payload: { ...base, issuer_url: 'http://idp.example.com/' } });
    assert.equal(insecure.json().error.code, 'oidc_discovery_failed');
    const scopes = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/oidc', headers: t.admin, payload: { ...base, issuer_url: idp.issuer, scopes: ['openid'] } });
    assert.equal(scopes.statusCode, 400);
    assert.equal(scopes.json().error.code, 'invalid_request');
    // The failed attempts did not replace the working configuration.
    const view = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/config', headers: t.admin });
    assert.equal(view.json().oidc.issuer_url, idp.issuer);
  });

  it('signs in with code + PKCE + state + nonce: JIT user, role from groups, session cookie, redirect to the console', async () => {
    const { callback: cb, flowCookie, authorize } = await signIn('alice');
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authorize.searchParams.get('code_challenge'));
    assert.ok(authorize.searchParams.get('state'));
    assert.ok(authorize.searchParams.get('nonce'));
    assert.equal(authorize.searchParams.get('redirect_uri'), CALLBACK);
    assert.ok(cb.searchParams.get('code'));
    const res = await callback(cb, flowCookie);
    assert.equal(res.statusCode, 302, res.body);
    assert.equal(res.headers.location, `${PUBLIC}/`);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
    const session = cookies.find((c) => c.startsWith('atrium_session='))!;
    assert.match(session, /HttpOnly; Secure; SameSite=Lax/);
    assert.ok(cookies.some((c) => /^atrium_sso_flow=;.*Max-Age=0/.test(c)), 'the flow cookie is cleared');
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: session.split(';')[0]! } });
    assert.equal(me.statusCode, 200);
    assert.ok(me.json().permissions.includes('admin'));
    const user = await t.db.query<{ email: string; name: string; role: string; external_id: string }>("SELECT * FROM users WHERE email = 'alice@example.com'");
    assert.equal(user.rows[0]?.name, 'Alice Admin');
    assert.equal(user.rows[0]?.role, 'admin');
    assert.equal(user.rows[0]?.external_id, `${idp.issuer}|alice`);
    const status = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status', headers: { cookie: session.split(';')[0]! } });
    assert.ok(status.json().last_login);
    // A second sign-in of another user gets that user's role (viewer from the readers group).
    const bob = await signIn('bob');
    const bobRes = await callback(bob.callback, bob.flowCookie);
    assert.equal(bobRes.statusCode, 302, bobRes.body);
    const bobSession = ([] as string[]).concat(bobRes.headers['set-cookie'] as string[]).find((c) => c.startsWith('atrium_session='))!;
    const bobMe = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: bobSession.split(';')[0]! } });
    assert.deepEqual(bobMe.json().permissions, ['query', 'connector:read']);
  });

  it('rejects a replayed callback, a callback without the flow cookie, and a forged state', async () => {
    const first = await signIn('bob');
    assert.equal((await callback(first.callback, first.flowCookie)).statusCode, 302);
    const replay = await callback(first.callback, first.flowCookie);
    assert.equal(replay.statusCode, 401);
    assert.equal(replay.json().error.code, 'oidc_state_invalid');

    const second = await signIn('bob');
    const noCookie = await callback(second.callback);
    assert.equal(noCookie.statusCode, 401);
    assert.equal(noCookie.json().error.code, 'sso_callback_mismatch');
    assert.equal(noCookie.json().error.details.remedy, 'callback URL must match exactly');
    const otherCookie = await callback(second.callback, 'atrium_sso_flow=someone-elses-flow-cookie');
    assert.equal(otherCookie.json().error.code, 'sso_callback_mismatch');

    const forged = new URL(second.callback);
    forged.searchParams.set('state', 'forged-state');
    const bad = await callback(forged, second.flowCookie);
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().error.code, 'oidc_state_invalid');
  });

  it('reports an IdP error, an unverified email and an ID token outside our clock window with distinct codes', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    const state = new URL(String(start.headers.location)).searchParams.get('state')!;
    const flow = String(([] as string[]).concat(start.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    const denied = await t.app.inject({
      method: 'GET',
      url: `/v1/auth/oidc/callback?error=access_denied&error_description=user+cancelled&state=${encodeURIComponent(state)}&iss=${encodeURIComponent(idp.issuer)}`,
      headers: { cookie: flow },
    });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.json().error.code, 'oidc_provider_error');

    const eve = await signIn('eve');
    const unverified = await callback(eve.callback, eve.flowCookie);
    assert.equal(unverified.json().error.code, 'sso_email_unverified');

    // Our clock two hours ahead of the IdP's: the one-hour ID token is already expired by our reckoning.
    offsetMs = 2 * 3_600_000;
    try {
      const skewed = await signIn('alice');
      const res = await callback(skewed.callback, skewed.flowCookie);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'sso_clock_skew');
      assert.equal(res.json().error.details.remedy, 'synchronize server time');
    } finally {
      offsetMs = 0;
    }
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.login_failed', headers: t.admin });
    const codes = audit.json().events.map((e: { code: string }) => e.code);
    for (const c of ['oidc_provider_error', 'sso_email_unverified', 'sso_clock_skew', 'sso_callback_mismatch']) assert.ok(codes.includes(c), c);
  });

  it('test mode re-checks discovery and the clock against the IdP', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().ok, true, JSON.stringify(res.json().problems));
    assert.deepEqual(
      res.json().checks.map((c: { name: string }) => c.name),
      ['client_secret', 'discovery', 'clock'],
    );
  });

  it('switching to SAML makes it the one active provider', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    assert.ok(String(before.headers.location).startsWith(idp.issuer));
    const { generateIdpKeys } = await import('./saml-idp.ts');
    const keys = await generateIdpKeys();
    const saml = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: t.admin,
      payload: { idp_entity_id: 'https://idp.example.test', idp_sso_url: 'https://idp.example.test/sso', idp_certificate: keys.certPem },
    });
    assert.equal(saml.json().active_provider, 'saml');
    const after = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    assert.ok(String(after.headers.location).startsWith('https://idp.example.test/sso?SAMLRequest='));
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status', headers: t.admin })).json().provider_type, 'saml');
  });
});
