import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { openTestPostgres } from '../support/db.ts';
import { b64, generateIdpKeys, type IdpKeys, readAuthnRequest, responseXml, sign } from './saml-idp.ts';

const IDP = 'https://idp.example.test/saml';
const PUBLIC = 'http://127.0.0.1:8080';
const ACS = `${PUBLIC}/v1/auth/saml/callback`;

// The same SQL on the machine's PostgreSQL: JIT upsert (xmax), one-use requests, replay records, sessions.
describe('SSO storage on PostgreSQL', () => {
  let t: TestApp;
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let keys: IdpKeys;

  before(async () => {
    [pg, keys] = await Promise.all([openTestPostgres(), generateIdpKeys()]);
    t = await createTestApp({ db: pg.db });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/saml',
      headers: t.admin,
      payload: { idp_entity_id: IDP, idp_sso_url: 'https://idp.example.test/sso', idp_certificate: keys.certPem },
    });
    assert.equal(res.statusCode, 200, res.body);
  });
  after(async () => {
    await t.close().catch(() => undefined);
    await pg.drop();
  });

  async function signIn(email: string) {
    const start = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
    const id = readAuthnRequest(String(start.headers.location)).id;
    const xml = sign(
      responseXml({
        issuer: IDP,
        destination: ACS,
        recipient: ACS,
        audience: PUBLIC,
        inResponseTo: id,
        nameId: email,
        attributes: { email },
        now: new Date(),
        notBeforeOffsetMs: -60_000,
        notOnOrAfterOffsetMs: 300_000,
        status: 'urn:oasis:names:tc:SAML:2.0:status:Success',
        assertionId: `_a${id}`,
        responseId: `_r${id}`,
      }),
      keys,
    );
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/auth/saml/callback',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `SAMLResponse=${encodeURIComponent(b64(xml))}`,
      });
    return { res: await post(), replay: post };
  }

  it('provisions once, updates on the next sign-in, refuses replays, and sessions authenticate', async () => {
    const first = await signIn('pg@example.com');
    assert.equal(first.res.statusCode, 302, first.res.body);
    assert.equal((await first.replay()).json().error.code, 'saml_replay');
    const second = await signIn('pg@example.com');
    assert.equal(second.res.statusCode, 302);
    const users = await pg.db.query<{ n: number }>("SELECT count(*)::int AS n FROM users WHERE email = 'pg@example.com'");
    assert.equal(users.rows[0]!.n, 1);
    const events = await t.app.inject({ method: 'GET', url: '/v1/audit?action=auth.sso.login_succeeded', headers: t.admin });
    assert.deepEqual(events.json().events.map((e: { jit_created: boolean }) => e.jit_created), [false, true]);
    const cookie = String(([] as string[]).concat(second.res.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } });
    assert.equal(me.json().kind, 'session');
    assert.deepEqual(me.json().permissions, ['query', 'connector:read']);
  });
});
