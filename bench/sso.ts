// SSO benchmark: SAML response validation (signature + checks), a full SAML sign-in over HTTP on PGlite, and the
// cost of a session-cookie credential vs an API key. `npm run bench -- sso`.
import { performance } from 'node:perf_hooks';
import { validateSamlResponse } from '../src/auth/saml/validate.ts';
import { b64, generateIdpKeys, readAuthnRequest, responseXml, sign, xsw } from '../test/sso/saml-idp.ts';
import { createTestApp } from '../test/support/app.ts';
import { machineLine, writeBenchSection } from './report.ts';

const IDP = 'https://idp.example.test/saml';
const PUBLIC = 'http://127.0.0.1:8080';
const ACS = `${PUBLIC}/v1/auth/saml/callback`;

function fields(id: string, n: number) {
  return {
    issuer: IDP,
    destination: ACS,
    recipient: ACS,
    audience: PUBLIC,
    inResponseTo: id,
    nameId: `user${n}@example.com`,
    attributes: { email: `user${n}@example.com`, displayName: `User ${n}`, memberOf: ['engineering', 'staff'] },
    now: new Date(),
    notBeforeOffsetMs: -60_000,
    notOnOrAfterOffsetMs: 300_000,
    status: 'urn:oasis:names:tc:SAML:2.0:status:Success',
    assertionId: `_a${id}${n}`,
    responseId: `_r${id}${n}`,
  };
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: q(0.5).toFixed(2), p95: q(0.95).toFixed(2), mean: (s.reduce((a, b) => a + b, 0) / s.length).toFixed(2) };
}

async function time(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

const keys = await generateIdpKeys();
const N = 200;
const valid = Array.from({ length: N }, (_, i) => b64(sign(responseXml(fields('_bench', i)), keys)));
const wrapped = valid.slice(0, 50).map((_, i) => b64(xsw(4, sign(responseXml(fields('_bench', i)), keys), 'root@example.com')));
const input = { idpEntityId: IDP, idpCertificate: keys.certPem, spEntityId: PUBLIC, acsUrl: ACS, skewMs: 120_000 };

const validation = await time(N, async (i) => {
  const r = await validateSamlResponse({ ...input, samlResponse: valid[i]!, now: new Date() });
  if (r.fatal || r.problems.length) throw new Error(`unexpected problems: ${JSON.stringify(r.problems)}`);
});
const rejection = await time(wrapped.length, async (i) => {
  const r = await validateSamlResponse({ ...input, samlResponse: wrapped[i]!, now: new Date() });
  if (!r.fatal) throw new Error('XSW accepted');
});

const t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_BURST: '1000000' } });
await t.app.inject({ method: 'POST', url: '/v1/auth/sso/saml', headers: t.admin, payload: { idp_entity_id: IDP, idp_sso_url: 'https://idp.example.test/sso', idp_certificate: keys.certPem } });
const LOGINS = 50;
let cookie = '';
const signInCallbackMs: number[] = [];
const signIns = await time(LOGINS, async (i) => {
  const start = await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=default' });
  const id = readAuthnRequest(String(start.headers.location)).id;
  const xml = sign(responseXml(fields(id, i)), keys);
  const t0 = performance.now();
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/saml/callback',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `SAMLResponse=${encodeURIComponent(b64(xml))}`,
  });
  // The callback alone, without the test IdP's signing.
  signInCallbackMs.push(performance.now() - t0);
  if (res.statusCode !== 302) throw new Error(res.body);
  cookie = String(([] as string[]).concat(res.headers['set-cookie'] as string[])[0]).split(';')[0]!;
});
const REQS = 500;
const bySession = await time(REQS, async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } });
  if (r.statusCode !== 200) throw new Error(r.body);
});
const byKey = await time(REQS, async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/me', headers: t.admin });
  if (r.statusCode !== 200) throw new Error(r.body);
});
await t.close();

const rows = [
  ['validate a signed SAML response (node-saml signature + Atrium checks)', N, stats(validation)],
  ['reject an XSW4-wrapped response', wrapped.length, stats(rejection)],
  ['SAML callback over HTTP on PGlite (validate, replay + request records, JIT user, session, audit)', LOGINS, stats(signInCallbackMs)],
  ['whole sign-in incl. /login and the test IdP signing', LOGINS, stats(signIns)],
  ['GET /v1/me with the session cookie', REQS, stats(bySession)],
  ['GET /v1/me with an API key', REQS, stats(byKey)],
] as const;
const md = [
  '## Single sign-on',
  '',
  machineLine(),
  '',
  'Command: `npm run bench -- sso` (bench/sso.ts). Sequential, one process, in-memory PGlite, RSA-2048 SHA-256 signatures.',
  '',
  '| What | n | p50 ms | p95 ms | mean ms |',
  '|---|---|---|---|---|',
  ...rows.map(([what, n, s]) => `| ${what} | ${n} | ${s.p50} | ${s.p95} | ${s.mean} |`),
].join('\n');
await writeBenchSection('sso', md);
console.log(md);
