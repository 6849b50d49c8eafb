import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { generateIdpKeys } from '../../test/sso/saml-idp.ts';
import { certificateValidityProblem, parseCertificate } from './certificate.ts';

describe('IdP certificates', () => {
  let pem = '';
  const notAfter = new Date('2030-01-01T00:00:00Z');
  before(async () => {
    pem = (await generateIdpKeys({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter, cn: 'Unit IdP' })).certPem;
  });
  it('parses PEM or its bare base64 body and reads the validity window', () => {
    const a = parseCertificate(pem);
    const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, '');
    const b = parseCertificate(body);
    assert.ok('cert' in a && 'cert' in b);
    assert.equal(a.cert.pem, b.cert.pem);
    assert.equal(a.cert.notAfter.toISOString(), notAfter.toISOString());
    assert.match(a.cert.subject, /CN=Unit IdP/);
  });
  it('reports an expired certificate with the remedy, and a not-yet-valid one', () => {
    const c = parseCertificate(pem);
    assert.ok('cert' in c);
    assert.equal(certificateValidityProblem(c.cert, new Date('2025-06-01T00:00:00Z')), null);
    const expired = certificateValidityProblem(c.cert, new Date('2030-01-01T00:00:00Z'));
    assert.equal(expired?.code, 'sso_idp_certificate_expired');
    assert.equal(expired?.remedy, 'upload a new certificate');
    assert.equal(certificateValidityProblem(c.cert, new Date('2019-01-01T00:00:00Z'))?.code, 'sso_idp_certificate_invalid');
  });
  it('refuses garbage and certificate bundles', () => {
    for (const bad of ['', 'hello', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', `${pem}${pem}`]) {
      const r = parseCertificate(bad);
      assert.ok('problem' in r, bad.slice(0, 20));
      assert.equal(r.problem.code, 'sso_idp_certificate_invalid');
    }
  });
});
