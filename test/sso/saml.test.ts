import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { createRuntime, type Runtime } from '../../src/main/runtime.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { openTestPglite } from '../support/db.ts';
import {
  b64,
  generateIdpKeys,
  type IdpKeys,
  injectNameIdComment,
  type ResponseFields,
  readAuthnRequest,
  responseXml,
  sign,
  stripSignatures,
  tamperNameId,
  xsw,
} from './saml-idp.ts';

const IDP = 'https://idp.example.test/saml';
const PUBLIC = 'http://127.0.0.1:8080';
const ACS = `${PUBLIC}/v1/auth/saml/callback`;
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

describe('SAML single sign-on', () => {
  let t: TestApp;
  let keys: IdpKeys;
  let attacker: IdpKeys;
  let idpServer: http.Server;
  let idpUrl: string;
  // Real time plus an adjustable offset, so a test can put our clock out of step with the IdP's.
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

  before(async () => {
    [keys, attacker] = await Promise.all([generateIdpKeys(), generateIdpKeys({ cn: 'Attacker' })]);
    // Stands in for the IdP's SSO URL: reachable, and its Date header is the IdP's clock.
    idpServer = http.createServer((_req, res) => res.end('idp'));
    await new Promise<void>((r) => idpServer.listen(0, '127.0.0.1', r));
    idpUrl = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}/sso`;
    t = await createTestApp({ clock, env: { ATRIUM_RATE_LIMIT_BURST: '100000' } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: t.admin,
      payload: { idp_entity_id: IDP, idp_sso_url: idpUrl, idp_certificate: keys.certPem, attribute_mapping: { groups: 'memberOf' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const map = await t.app.inject({
      method: 'PUT',
      url: '/v1/auth/sso/group-mapping',
      headers: t.admin,
      payload: { group_mapping: { 'atrium-admins': 'admin', engineering: 'member' } },
    });
    assert.equal(map.statusCode, 200, map.body);
  });
  after(async () => {
    await t.close();
    await new Promise((r) => idpServer.close(r));
  });

  /** Starts a sign-in as a browser would and returns the AuthnRequest id the IdP must answer. */
  async function startLogin(): Promise<string> {
    const res = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    assert.equal(res.statusCode, 302, res.body);
    const req = readAuthnRequest(String(res.headers.location));
    assert.equal(req.acs, ACS);
    return req.id;
  }

  function fields(requestId: string | null, over: Partial<ResponseFields> = {}): ResponseFields {
    const id = Math.random().toString(36).slice(2);
    return {
      issuer: IDP,
      destination: ACS,
      recipient: ACS,
      audience: PUBLIC,
      inResponseTo: requestId,
      nameId: 'ada@example.com',
      attributes: { email: 'ada@example.com', displayName: 'Ada Lovelace', memberOf: ['engineering'] },
      now: clock.now(),
      notBeforeOffsetMs: -60_000,
      notOnOrAfterOffsetMs: 5 * 60_000,
      status: SUCCESS,
      assertionId: `_a${id}`,
      responseId: `_r${id}`,
      ...over,
    };
  }

  function post(xml: string, opts: { raw?: boolean } = {}) {
    return t.app.inject({
      method: 'POST',
      url: '/v1/auth/saml/callback',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `SAMLResponse=${encodeURIComponent(opts.raw ? xml : b64(xml))}&RelayState=default`,
    });
  }

  function sessionCookie(res: { headers: Record<string, unknown> }): string {
    const cookies = ([] as string[]).concat((res.headers['set-cookie'] as string | string[] | undefined) ?? []);
    const c = cookies.find((x) => x.startsWith('atrium_session='));
    assert.ok(c, 'a session cookie is set');
    return c;
  }

  it('serves SP metadata with the public URL as entity id, the POST ACS and the email NameID format', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/saml/metadata' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /application\/samlmetadata\+xml/);
    assert.match(res.body, new RegExp(`entityID="${PUBLIC}"`));
    assert.match(res.body, /Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"/);
    assert.match(res.body, new RegExp(`Location="${ACS}"`));
    assert.match(res.body, /urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress/);
    assert.match(res.body, /WantAssertionsSigned="true"/);
  });

  it('redirects login to the IdP with a deflated AuthnRequest, and 404/400 for unknown or unconfigured tenants', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    assert.equal(res.statusCode, 302);
    const location = String(res.headers.location);
    assert.ok(location.startsWith(`${idpUrl}?`));
    const req = readAuthnRequest(location);
    assert.match(req.id, /^_[0-9a-f]{40}$/);
    assert.equal(req.issuer, PUBLIC);
    assert.equal(req.relayState, 'default');
    const unknown = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=nope' });
    assert.equal(unknown.statusCode, 404);
    await t.keyWith(['query'], 'other');
    const unconfigured = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=other' });
    assert.equal(unconfigured.statusCode, 400);
    assert.equal(unconfigured.json().error.code, 'sso_not_configured');
    const missing = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login' });
    assert.equal(missing.statusCode, 400);
  });

  it('accepts a valid signed response: JIT user, role from groups, secure session cookie, redirect to the console', async () => {
    const id = await startLogin();
    const res = await post(sign(responseXml(fields(id, { nameId: 'grace@example.com', attributes: { email: 'Grace@Example.com', firstName: 'Grace', lastName: 'Hopper', memberOf: ['engineering', 'atrium-admins'] } })), keys));
    assert.equal(res.statusCode, 302, res.body);
    assert.equal(res.headers.location, `${PUBLIC}/`);
    const cookie = sessionCookie(res);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /Secure/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Max-Age=28800/);
    const token = cookie.split(';')[0]!;
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: token } });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().kind, 'session');
    assert.equal(me.json().tenant_id, 'default');
    assert.ok(me.json().permissions.includes('admin'));
    const users = await t.db.query<{ email: string; name: string; role: string; groups: string[] }>("SELECT * FROM users WHERE email = 'grace@example.com'");
    assert.deepEqual(
      { email: users.rows[0]?.email, name: users.rows[0]?.name, role: users.rows[0]?.role },
      { email: 'grace@example.com', name: 'Grace Hopper', role: 'admin' },
    );
    // The session authenticates API calls with the role's permissions (admin may read the audit log).
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.login_succeeded', headers: { cookie: token } });
    assert.equal(audit.statusCode, 200);
    assert.equal(audit.json().events[0].email, 'grace@example.com');
    assert.equal(audit.json().events[0].role, 'admin');
  });

  it('gives a member (not admin) to a user whose groups map to member, and the default role to unmapped users', async () => {
    const id = await startLogin();
    const res = await post(sign(responseXml(fields(id)), keys));
    assert.equal(res.statusCode, 302, res.body);
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: sessionCookie(res).split(';')[0]! } });
    assert.deepEqual(me.json().permissions, ['query', 'connector:read', 'connector:write']);
    const denied = await t.app.inject({ method: 'GET', url: '/v1/audit', headers: { cookie: sessionCookie(res).split(';')[0]! } });
    assert.equal(denied.statusCode, 403);
    const id2 = await startLogin();
    const viewer = await post(sign(responseXml(fields(id2, { nameId: 'guest@example.com', attributes: { mail: 'guest@example.com' } })), keys, 'response'));
    assert.equal(viewer.statusCode, 302, viewer.body);
    const me2 = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: sessionCookie(viewer).split(';')[0]! } });
    assert.deepEqual(me2.json().permissions, ['query', 'connector:read']);
  });

  it('sends a browser back to the console sign-in page with the error code', async () => {
    const id = await startLogin();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/saml/callback',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml' },
      payload: `SAMLResponse=${encodeURIComponent(b64(responseXml(fields(id))))}`,
    });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `${PUBLIC}/?sso_error=saml_signature_missing`);
    assert.equal(res.headers['set-cookie'], undefined);
  });

  it("keeps tenants apart: another tenant's IdP cannot answer this tenant's request, and signs in only to its own", async () => {
    // The attacker administers tenant acme and its IdP (the attacker key); the victim is tenant default.
    const acmeKey = await t.keyWith(['admin'], 'acme');
    const ACME_IDP = 'https://idp.acme.test';
    const cfg = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: { authorization: acmeKey.authorization },
      payload: { idp_entity_id: ACME_IDP, idp_sso_url: idpUrl, idp_certificate: attacker.certPem },
    });
    assert.equal(cfg.statusCode, 200);
    const victimRequest = await startLogin();
    const forged = await post(sign(responseXml(fields(victimRequest, { issuer: ACME_IDP, nameId: 'ceo@example.com' })), attacker));
    assert.equal(forged.statusCode, 401);
    assert.equal(forged.json().error.code, 'saml_signature_invalid');
    const acmeStart = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=acme' });
    const acmeRequest = readAuthnRequest(String(acmeStart.headers.location)).id;
    const own = await post(sign(responseXml(fields(acmeRequest, { issuer: ACME_IDP, nameId: 'ceo@example.com', attributes: { email: 'ceo@example.com' } })), attacker));
    assert.equal(own.statusCode, 302, own.body);
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: sessionCookie(own).split(';')[0]! } });
    assert.equal(me.json().tenant_id, 'acme');
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso*', headers: { cookie: sessionCookie(own).split(';')[0]! } });
    assert.equal(audit.statusCode, 403, 'a viewer of acme reads no audit, and never default’s');
  });

  it('detects a redirect loop: a browser restarting sign-in without ever completing it', async () => {
    const cookies = (res: { headers: Record<string, unknown> }) => ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []);
    const first = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    assert.ok(cookies(first).some((c) => /^atrium_sso_attempts=1; Path=\/v1\/auth; Max-Age=120/.test(c)));
    const fourth = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default', headers: { cookie: 'atrium_sso_attempts=4' } });
    assert.equal(fourth.statusCode, 302);
    assert.ok(cookies(fourth).some((c) => c.startsWith('atrium_sso_attempts=5;')));
    const loop = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default', headers: { cookie: 'atrium_sso_attempts=5' } });
    assert.equal(loop.statusCode, 400);
    assert.equal(loop.json().error.code, 'sso_callback_mismatch');
    assert.match(loop.json().error.message, /redirect loop/);
    assert.equal(loop.json().error.details.remedy, 'callback URL must match exactly');
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.login_failed', headers: t.admin });
    assert.equal(audit.json().events[0].redirect_loop, true);
    // Completing a sign-in resets the count.
    const id = readAuthnRequest(String(fourth.headers.location)).id;
    const ok = await post(sign(responseXml(fields(id)), keys));
    assert.ok(cookies(ok).some((c) => /^atrium_sso_attempts=; .*Max-Age=0/.test(c)));
  });

  it('rejects a replayed assertion', async () => {
    const id = await startLogin();
    const xml = sign(responseXml(fields(id)), keys);
    assert.equal((await post(xml)).statusCode, 302);
    const again = await post(xml);
    assert.equal(again.statusCode, 401);
    assert.equal(again.json().error.code, 'saml_replay');
  });

  // The attack corpus: every entry must be refused with the stated code, and must not start a session.
  const attacks: Array<{ name: string; code: string; make: (id: string) => string; raw?: boolean }> = [
    { name: 'unsigned response', code: 'saml_signature_missing', make: (id) => responseXml(fields(id)) },
    { name: 'stripped signature', code: 'saml_signature_missing', make: (id) => stripSignatures(sign(responseXml(fields(id)), keys, 'both')) },
    { name: 'NameID tampered after signing', code: 'saml_signature_invalid', make: (id) => tamperNameId(sign(responseXml(fields(id)), keys), 'root@example.com') },
    {
      name: 'attributes tampered after signing the response',
      code: 'saml_signature_invalid',
      make: (id) => sign(responseXml(fields(id)), keys, 'response').replace('engineering', 'atrium-admins'),
    },
    { name: 're-signed with an attacker key', code: 'saml_signature_invalid', make: (id) => sign(responseXml(fields(id, { nameId: 'root@example.com' })), attacker) },
    ...([1, 2] as const).map((v) => ({
      name: `XSW${v} (signed response)`,
      code: 'saml_multiple_assertions',
      make: (id: string) => xsw(v, sign(responseXml(fields(id)), keys, 'response'), 'root@example.com'),
    })),
    ...([3, 4, 5, 6, 7, 8] as const).map((v) => ({
      name: `XSW${v} (signed assertion)`,
      code: 'saml_multiple_assertions',
      make: (id: string) => xsw(v, sign(responseXml(fields(id)), keys), 'root@example.com'),
    })),
    {
      name: 'duplicate signed assertions',
      code: 'saml_multiple_assertions',
      make: (id) => {
        const a = sign(responseXml(fields(id)), keys);
        const b = sign(responseXml(fields(id, { nameId: 'root@example.com' })), keys);
        const second = b.slice(b.indexOf('<saml:Assertion'), b.indexOf('</samlp:Response>'));
        return a.replace('</samlp:Response>', `${second}</samlp:Response>`);
      },
    },
    {
      name: 'comment injected into the NameID',
      code: 'saml_malformed',
      make: (id) => injectNameIdComment(sign(responseXml(fields(id, { nameId: 'admin@example.com.evil.test', attributes: {} })), keys)),
    },
    { name: 'wrong Audience', code: 'saml_audience_mismatch', make: (id) => sign(responseXml(fields(id, { audience: 'https://other-sp.example' })), keys) },
    { name: 'wrong Recipient', code: 'sso_callback_mismatch', make: (id) => sign(responseXml(fields(id, { recipient: 'https://evil.example/acs' })), keys) },
    { name: 'wrong Destination', code: 'sso_callback_mismatch', make: (id) => sign(responseXml(fields(id, { destination: 'https://evil.example/acs' })), keys, 'both') },
    { name: 'missing Destination', code: 'sso_callback_mismatch', make: (id) => sign(responseXml(fields(id, { destination: null })), keys) },
    { name: 'wrong Issuer', code: 'saml_issuer_mismatch', make: (id) => sign(responseXml(fields(id, { issuer: 'https://evil-idp.example' })), keys) },
    {
      name: 'expired assertion',
      code: 'saml_response_expired',
      make: (id) => sign(responseXml(fields(id, { notBeforeOffsetMs: -3_600_000, notOnOrAfterOffsetMs: -1_800_000 })), keys),
    },
    {
      name: 'not yet valid assertion',
      code: 'sso_clock_skew',
      make: (id) => sign(responseXml(fields(id, { notBeforeOffsetMs: 1_800_000, notOnOrAfterOffsetMs: 3_600_000 })), keys),
    },
    {
      name: 'non-success Status',
      code: 'saml_status_not_success',
      make: (id) => sign(responseXml(fields(id, { status: 'urn:oasis:names:tc:SAML:2.0:status:Requester' })), keys, 'both'),
    },
    { name: 'unknown InResponseTo', code: 'saml_unknown_request', make: () => sign(responseXml(fields('_0123456789abcdef0123456789abcdef01234567')), keys) },
    { name: 'missing InResponseTo (IdP-initiated)', code: 'saml_unknown_request', make: () => sign(responseXml(fields(null)), keys) },
    {
      name: 'DOCTYPE with an external entity (XXE)',
      code: 'saml_doctype_forbidden',
      make: (id) => `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${sign(responseXml(fields(id, { nameId: '&xxe;' })), keys)}`,
    },
    { name: 'SHA-1 signature', code: 'saml_weak_algorithm', make: (id) => sign(responseXml(fields(id)), keys, 'assertion', 'sha1') },
    { name: 'not base64', code: 'saml_malformed', raw: true, make: () => '<samlp:Response>' },
    { name: 'not XML', code: 'saml_malformed', make: () => '<<<not xml' },
  ];

  for (const attack of attacks) {
    it(`rejects: ${attack.name}`, async () => {
      const id = await startLogin();
      const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth_sessions');
      const res = await post(attack.make(id), { raw: attack.raw });
      assert.equal(res.statusCode === 401 || res.statusCode === 400, true, `status ${res.statusCode}: ${res.body}`);
      assert.equal(res.json().error.code, attack.code, res.body);
      assert.equal(typeof res.json().error.details.remedy, 'string');
      assert.equal(res.headers['set-cookie'], undefined);
      const afterCount = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth_sessions');
      assert.equal(afterCount.rows[0]!.n, before.rows[0]!.n, 'no session was created');
    });
  }

  it('accepts a response signed as a whole (assertion unsigned) and one signed twice', async () => {
    for (const target of ['response', 'both'] as const) {
      const id = await startLogin();
      const res = await post(sign(responseXml(fields(id)), keys, target));
      assert.equal(res.statusCode, 302, `${target}: ${res.body}`);
    }
  });

  it('tolerates the documented clock skew (120 s) and no more', async () => {
    const id = await startLogin();
    const ok = await post(sign(responseXml(fields(id, { notBeforeOffsetMs: 60_000 })), keys));
    assert.equal(ok.statusCode, 302, ok.body);
    const id2 = await startLogin();
    const late = await post(sign(responseXml(fields(id2, { notBeforeOffsetMs: -600_000, notOnOrAfterOffsetMs: -60_000 })), keys));
    assert.equal(late.statusCode, 302, late.body);
  });

  it('audits failures with the code and remedy, readable with action=auth.sso*', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso*&limit=1000', headers: t.admin });
    assert.equal(res.statusCode, 200);
    const events = res.json().events as Array<{ action: string; code?: string; remedy?: string; details: Record<string, unknown> }>;
    const actions = new Set(events.map((e) => e.action));
    for (const a of ['auth.sso.saml_configured', 'auth.sso.group_mapping_updated', 'auth.sso.login_succeeded', 'auth.sso.login_failed']) {
      assert.ok(actions.has(a), `audit has ${a}`);
    }
    const skew = events.find((e) => e.action === 'auth.sso.login_failed' && e.code === 'sso_clock_skew');
    assert.equal(skew?.remedy, 'synchronize server time');
    const mismatch = events.find((e) => e.code === 'sso_callback_mismatch');
    assert.equal(mismatch?.remedy, 'callback URL must match exactly');
    // Never the assertion itself.
    assert.ok(!JSON.stringify(events).includes('SignatureValue'));
  });

  it('dry-runs a pasted response in test mode without creating a user, a session or consuming the request', async () => {
    const id = await startLogin();
    const xml = sign(responseXml(fields(id, { nameId: 'dry@example.com', attributes: { email: 'dry@example.com', memberOf: ['atrium-admins'] } })), keys);
    const res = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true, saml_response: b64(xml) } });
    assert.equal(res.statusCode, 200, res.body);
    const report = res.json();
    assert.equal(report.ok, true, JSON.stringify(report.problems));
    assert.equal(report.extracted.name_id, 'dry@example.com');
    assert.deepEqual(report.mapped_user, { email: 'dry@example.com', name: null, groups: ['atrium-admins'], role: 'admin' });
    assert.equal(report.session_created, false);
    const users = await t.db.query("SELECT 1 FROM users WHERE email = 'dry@example.com'");
    assert.equal(users.rows.length, 0);
    // The request and the assertion are still unused: the real sign-in with the same response works.
    assert.equal((await post(xml)).statusCode, 302);
    const notTrue = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: false } });
    assert.equal(notTrue.statusCode, 400);
  });

  it('reports every problem of a bad pasted response, each with its remedy', async () => {
    const xml = sign(responseXml(fields(null, { audience: 'https://x.example', recipient: 'https://x.example/acs', notBeforeOffsetMs: 1_800_000, notOnOrAfterOffsetMs: 3_600_000 })), keys);
    const res = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true, saml_response: b64(xml) } });
    const codes = new Set((res.json().problems as Array<{ code: string }>).map((p) => p.code));
    for (const c of ['saml_audience_mismatch', 'sso_callback_mismatch', 'sso_clock_skew', 'saml_unknown_request']) assert.ok(codes.has(c), `reports ${c}: ${[...codes]}`);
    assert.equal(res.json().ok, false);
  });

  it('diagnoses an unmapped attribute with its remedy, in the test report and on sign-in', async () => {
    const set = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: t.admin,
      payload: { idp_entity_id: IDP, idp_sso_url: idpUrl, idp_certificate: keys.certPem, attribute_mapping: { email: 'urn:oid:0.9.2342.19200300.100.1.3' } },
    });
    assert.equal(set.statusCode, 200);
    try {
      const id = await startLogin();
      const xml = sign(responseXml(fields(id)), keys);
      const report = (await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true, saml_response: b64(xml) } })).json();
      const p = report.problems.find((x: { code: string }) => x.code === 'sso_attribute_not_mapped');
      assert.equal(p?.remedy, 'fix attribute_mapping');
      const res = await post(xml);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'sso_attribute_not_mapped');
      assert.equal(res.json().error.details.remedy, 'fix attribute_mapping');
    } finally {
      await t.app.inject({
        method: 'POST',
        url: '/v1/auth/sso/saml',
        headers: t.admin,
        payload: { idp_entity_id: IDP, idp_sso_url: idpUrl, idp_certificate: keys.certPem, attribute_mapping: { groups: 'memberOf' } },
      });
    }
  });

  it('diagnoses clock skew against the IdP clock in test mode', async () => {
    offsetMs = 10 * 60_000;
    try {
      const res = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true } });
      const report = res.json();
      const clockCheck = report.checks.find((c: { name: string }) => c.name === 'clock');
      assert.equal(clockCheck.ok, false);
      assert.equal(clockCheck.problems[0].code, 'sso_clock_skew');
      assert.equal(clockCheck.problems[0].remedy, 'synchronize server time');
      assert.ok(report.clock_offset_seconds >= 590 && report.clock_offset_seconds <= 610);
    } finally {
      offsetMs = 0;
    }
    const fine = (await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true } })).json();
    assert.equal(fine.ok, true, JSON.stringify(fine.problems));
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.test_run', headers: t.admin });
    assert.ok(audit.json().events.some((e: { problems: Array<{ code: string }> }) => e.problems.some((p) => p.code === 'sso_clock_skew')));
  });

  it('rejects an expired certificate at save time and diagnoses one that expired after saving', async () => {
    const expired = await generateIdpKeys({ notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: t.admin,
      payload: { idp_entity_id: IDP, idp_sso_url: idpUrl, idp_certificate: expired.certPem },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'sso_idp_certificate_expired');
    assert.equal(res.json().error.details.remedy, 'upload a new certificate');
    const garbage = await t.app.inject({ method: 'POST', url: '/v1/auth/sso/saml', headers: t.admin, payload: { idp_entity_id: IDP, idp_sso_url: idpUrl, idp_certificate: 'MIIBnotacert' } });
    assert.equal(garbage.json().error.code, 'sso_idp_certificate_invalid');
    // The stored certificate expires later (simulated by swapping it in storage).
    const original = await t.db.query<{ saml: unknown }>("SELECT saml FROM sso_configs WHERE tenant_id = 'default'");
    await t.db.query("UPDATE sso_configs SET saml = jsonb_set(saml, '{idp_certificate}', to_jsonb($1::text)) WHERE tenant_id = 'default'", [expired.certPem]);
    try {
      const id = await startLogin();
      const login = await post(sign(responseXml(fields(id)), expired));
      assert.equal(login.statusCode, 401);
      assert.equal(login.json().error.code, 'sso_idp_certificate_expired');
      const report = (await t.app.inject({ method: 'POST', url: '/v1/auth/sso/test', headers: t.admin, payload: { test_mode: true } })).json();
      assert.equal(report.checks.find((c: { name: string }) => c.name === 'idp_certificate').problems[0].code, 'sso_idp_certificate_expired');
    } finally {
      await t.db.query("UPDATE sso_configs SET saml = $1 WHERE tenant_id = 'default'", [JSON.stringify(original.rows[0]!.saml)]);
    }
    const rejected = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.config_rejected', headers: t.admin });
    assert.ok(rejected.json().events.some((e: { code: string; remedy: string }) => e.code === 'sso_idp_certificate_expired' && e.remedy === 'upload a new certificate'));
  });

  it('reports status, changes session TTL and debug mode with audit, and needs admin to configure', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status', headers: t.admin });
    assert.equal(status.statusCode, 200);
    assert.equal(status.json().enabled, true);
    assert.equal(status.json().provider_type, 'saml');
    assert.equal(status.json().provider_name, IDP);
    assert.match(status.json().last_login, /^\d{4}-\d\d-\d\dT.*Z$/);
    // The sign-in page asks before anyone is signed in: no last_login for anonymous callers.
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status?tenant_id=default' });
    assert.deepEqual(anonymous.json(), { enabled: true, provider_type: 'saml', provider_name: IDP, last_login: null });
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status' })).statusCode, 400);
    const other = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/status?tenant_id=nobody' });
    assert.equal(other.json().enabled, false);
    const patch = await t.app.inject({ method: 'PATCH', url: '/v1/auth/sso/config', headers: t.admin, payload: { debug_mode: true, session_ttl_seconds: 600 } });
    assert.equal(patch.statusCode, 200, patch.body);
    assert.equal(patch.json().debug_mode, true);
    assert.equal(patch.json().session_ttl_seconds, 600);
    const id = await startLogin();
    const res = await post(sign(responseXml(fields(id)), keys));
    assert.match(sessionCookie(res), /Max-Age=600/);
    await t.app.inject({ method: 'PATCH', url: '/v1/auth/sso/config', headers: t.admin, payload: { debug_mode: false, session_ttl_seconds: null } });
    const toggles = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.debug_toggled', headers: t.admin });
    assert.deepEqual(toggles.json().events.map((e: { debug_mode: boolean }) => e.debug_mode), [false, true]);
    const member = await t.keyWith(['query', 'connector:read', 'connector:write']);
    const denied = await t.app.inject({ method: 'PATCH', url: '/v1/auth/sso/config', headers: { authorization: member.authorization }, payload: { debug_mode: true } });
    assert.equal(denied.statusCode, 403);
    const bad = await t.app.inject({ method: 'PATCH', url: '/v1/auth/sso/config', headers: t.admin, payload: { debug_mode: 'yes' } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_request');
  });

  it('logs out: the session stops working and the cookie is cleared', async () => {
    const id = await startLogin();
    const res = await post(sign(responseXml(fields(id)), keys));
    const cookie = sessionCookie(res).split(';')[0]!;
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } })).statusCode, 200);
    const out = await t.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: { cookie } });
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /atrium_session=; .*Max-Age=0/);
    const ended = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } });
    assert.equal(ended.statusCode, 401);
    assert.equal(ended.json().error.details.reason, 'session_expired', 'the console can say why it shows the sign-in page');
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: 'atrium_session=forged-token-forged-token-forged' } })).statusCode, 401);
    // A bearer key decides alone: the stale cookie beside it changes nothing.
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie, ...t.admin } })).statusCode, 200);
  });

  it('accepts the session cookie on state-changing calls only from its own origin (CSRF from a sibling origin of the same site)', async () => {
    const id = await startLogin();
    const cookie = sessionCookie(await post(sign(responseXml(fields(id, { attributes: { email: 'csrf@example.com', memberOf: ['atrium-admins'] } })), keys))).split(';')[0]!;
    const create = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: { cookie, ...headers }, payload: { connector_type: 'api', display_name: 'csrf' } });
    // A page on another port of the same host is the same site: the browser sends the Lax cookie.
    const crossOrigin: Record<string, string>[] = [{ 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:18303' }, { origin: 'http://127.0.0.1:18303' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of crossOrigin) {
      const res = await create(headers);
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
      assert.equal(res.json().error.code, 'permission_denied');
      assert.equal(res.json().error.details.reason, 'cross_origin');
    }
    const logout = await t.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: { cookie, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:18303' } });
    assert.equal(logout.statusCode, 403);
    // Reads stay open to the cookie; the console's own origin, and clients that are not browsers, may write.
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie, 'sec-fetch-site': 'same-site' } })).statusCode, 200);
    assert.equal((await create({ 'sec-fetch-site': 'same-origin', origin: PUBLIC })).statusCode, 201);
    assert.equal((await create({})).statusCode, 201);
    // An API key is not attached by the browser: no origin rule applies to it.
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: { ...t.admin, origin: 'http://elsewhere.test' }, payload: { connector_type: 'api', display_name: 'k' } })).statusCode, 201);
  });

  it('lets an admin disable a user: sessions end at once and sign-in is refused until re-enabled', async () => {
    const id = await startLogin();
    const first = await post(sign(responseXml(fields(id, { nameId: 'leaver@example.com', attributes: { email: 'leaver@example.com' } })), keys));
    const cookie = sessionCookie(first).split(';')[0]!;
    const list = await t.app.inject({ method: 'GET', url: '/v1/auth/users', headers: t.admin });
    const leaver = list.json().users.find((u: { email: string }) => u.email === 'leaver@example.com');
    assert.equal(leaver.disabled, false);
    assert.ok(leaver.last_login_at);
    const off = await t.app.inject({ method: 'PATCH', url: `/v1/auth/users/${leaver.id}`, headers: t.admin, payload: { disabled: true } });
    assert.equal(off.statusCode, 200);
    assert.equal(off.json().disabled, true);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } })).statusCode, 401);
    const id2 = await startLogin();
    const again = await post(sign(responseXml(fields(id2, { nameId: 'leaver@example.com', attributes: { email: 'leaver@example.com' } })), keys));
    assert.equal(again.statusCode, 403);
    assert.equal(again.json().error.code, 'sso_user_disabled');
    await t.app.inject({ method: 'PATCH', url: `/v1/auth/users/${leaver.id}`, headers: t.admin, payload: { disabled: false } });
    const id3 = await startLogin();
    assert.equal((await post(sign(responseXml(fields(id3, { nameId: 'leaver@example.com', attributes: { email: 'leaver@example.com' } })), keys))).statusCode, 302);
    const missing = await t.app.inject({ method: 'PATCH', url: '/v1/auth/users/usr_nope', headers: t.admin, payload: { disabled: true } });
    assert.equal(missing.statusCode, 404);
    const otherTenant = await t.keyWith(['admin'], 'elsewhere');
    const cross = await t.app.inject({ method: 'PATCH', url: `/v1/auth/users/${leaver.id}`, headers: { authorization: otherTenant.authorization }, payload: { disabled: true } });
    assert.equal(cross.statusCode, 404, 'another tenant cannot touch this user');
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.user_*', headers: t.admin });
    assert.deepEqual(audit.json().events.map((e: { action: string }) => e.action), ['auth.sso.user_enabled', 'auth.sso.user_disabled']);
  });

  it('expires sessions after their TTL', async () => {
    const id = await startLogin();
    const cookie = sessionCookie(await post(sign(responseXml(fields(id)), keys))).split(';')[0]!;
    offsetMs = 28_801_000;
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } })).statusCode, 401);
    } finally {
      offsetMs = 0;
    }
  });

  it('refuses plain HTTP from a non-loopback peer with a clear error', async () => {
    for (const req of [
      { method: 'GET' as const, url: '/v1/auth/sso/saml/metadata' },
      { method: 'GET' as const, url: '/v1/auth/sso/login?tenant_id=default' },
      { method: 'GET' as const, url: '/v1/auth/sso/status', headers: t.admin },
    ]) {
      const res = await t.app.inject({ ...req, remoteAddress: '203.0.113.9' });
      assert.equal(res.statusCode, 403, req.url);
      assert.equal(res.json().error.code, 'sso_https_required');
      assert.match(res.json().error.message, /HTTPS/);
    }
    // X-Forwarded-Proto is ignored without ATRIUM_TRUST_PROXY.
    const spoofed = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/saml/metadata', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(spoofed.statusCode, 403);
  });
});

describe('SSO behind a TLS-terminating proxy', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_PUBLIC_URL: 'https://atrium.example.com', ATRIUM_TRUST_PROXY: 'true', ATRIUM_RATE_LIMIT_BURST: '3' } });
  });
  after(() => t.close());

  it('accepts X-Forwarded-Proto: https when the proxy is trusted, and refuses http even from loopback', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/saml/metadata', remoteAddress: '10.0.0.7', headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /entityID="https:\/\/atrium.example.com"/);
    assert.match(ok.body, /Location="https:\/\/atrium.example.com\/v1\/auth\/saml\/callback"/);
    const plain = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/saml/metadata', remoteAddress: '10.0.0.7', headers: { 'x-forwarded-proto': 'http' } });
    assert.equal(plain.statusCode, 403);
    const loopback = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/saml/metadata' });
    assert.equal(loopback.statusCode, 403, 'a non-loopback public URL gets no development exception');
  });

  it('rate-limits public sign-in endpoints per client address', async () => {
    const hit = (ip: string) =>
      t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default', remoteAddress: '10.0.0.8', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++) assert.equal((await hit('198.51.100.20')).statusCode, 400);
    const limited = await hit('198.51.100.20');
    assert.equal(limited.statusCode, 429);
    assert.ok(limited.headers['retry-after']);
    assert.equal((await hit('198.51.100.21')).statusCode, 400, 'another client is not affected');
  });

  it('accepts form bodies only on the SAML ACS, never on JSON admin endpoints', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      remoteAddress: '10.0.0.7',
      headers: { 'x-forwarded-proto': 'https', authorization: t.admin.authorization, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'idp_entity_id=x&idp_sso_url=https://x&idp_certificate=y',
    });
    assert.equal(res.statusCode, 415);
  });
});

describe('SSO debug logging', () => {
  const lines: string[] = [];
  let runtime: Runtime;
  let keys: IdpKeys;
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };

  before(async () => {
    keys = await generateIdpKeys();
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    const config = loadConfig({ ATRIUM_DATA_DIR: '/tmp/atrium-test-unused', ATRIUM_ADMIN_API_KEY: ADMIN_KEY, ATRIUM_SECRET_KEY: 'test-secret-key', LOG_LEVEL: 'info' });
    runtime = await createRuntime(config, log, { db: await openTestPglite() });
    const res = await runtime.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: admin,
      payload: { idp_entity_id: IDP, idp_sso_url: 'https://idp.example.test/sso', idp_certificate: keys.certPem },
    });
    assert.equal(res.statusCode, 200, res.body);
  });
  after(() => runtime.close());

  async function login(mutate: (xml: string) => string = (x) => x) {
    const start = await runtime.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    const id = readAuthnRequest(String(start.headers.location)).id;
    const now = new Date();
    const xml = mutate(
      sign(
        responseXml({
          issuer: IDP,
          destination: ACS,
          recipient: ACS,
          audience: PUBLIC,
          inResponseTo: id,
          nameId: 'dbg@example.com',
          attributes: { email: 'dbg@example.com' },
          now,
          notBeforeOffsetMs: -60_000,
          notOnOrAfterOffsetMs: 300_000,
          status: SUCCESS,
          assertionId: `_a${id}`,
          responseId: `_r${id}`,
        }),
        keys,
      ),
    );
    const res = await runtime.app.inject({
      method: 'POST',
      url: '/v1/auth/saml/callback',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `SAMLResponse=${encodeURIComponent(b64(xml))}`,
    });
    return { res, encoded: b64(xml) };
  }

  it('logs each SSO step at info only in debug mode, never the assertion, the response or the session token', async () => {
    await login();
    assert.ok(!lines.some((l) => l.includes('"sso_debug":true')), 'quiet without debug mode');
    const on = await runtime.app.inject({ method: 'PATCH', url: '/v1/auth/sso/config', headers: admin, payload: { debug_mode: true } });
    assert.equal(on.statusCode, 200);
    const ok = await login();
    assert.equal(ok.res.statusCode, 302);
    const bad = await login((x) => x.replace('dbg@example.com</saml:NameID>', 'root@example.com</saml:NameID>'));
    assert.equal(bad.res.statusCode, 401);
    const debug = lines.filter((l) => l.includes('"sso_debug":true'));
    assert.ok(debug.some((l) => l.includes('sign-in started')));
    assert.ok(debug.some((l) => l.includes('sign-in accepted') && l.includes('dbg@example.com')));
    assert.ok(debug.some((l) => l.includes('sign-in rejected: saml_signature_invalid')));
    const token = String(([] as string[]).concat(ok.res.headers['set-cookie'] as string[])[0]).split(';')[0]!.split('=')[1]!;
    const all = lines.join('\n');
    for (const secret of [token, ok.encoded.slice(0, 60), bad.encoded.slice(0, 60), 'SignatureValue', 'BEGIN CERTIFICATE', 'test-secret-key']) {
      assert.ok(!all.includes(secret), `logs must not contain ${secret.slice(0, 20)}…`);
    }
  });
  it('logs callback URLs without their one-time codes and tokens (OAuth code, state, OIDC, SAML redirect binding)', async () => {
    await runtime.app.inject({ method: 'GET', url: '/v1/connectors/oauth/callback?state=st4te-value&code=SECRETCODE123&full=true' });
    await runtime.app.inject({ method: 'GET', url: '/v1/auth/sso/oidc/callback?code=OIDCCODE456&state=s2' });
    const all = lines.join('\n');
    for (const secret of ['SECRETCODE123', 'st4te-value', 'OIDCCODE456']) assert.ok(!all.includes(secret), `logs must not contain ${secret}`);
    assert.ok(all.includes('/v1/connectors/oauth/callback?state=[redacted]&code=[redacted]&full=true'), 'other parameters stay readable');
  });
});
