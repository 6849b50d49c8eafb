import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { b64, generateIdpKeys, type IdpKeys, type ResponseFields, responseXml, sign } from '../../../test/sso/saml-idp.ts';
import { validateSamlResponse } from './validate.ts';

const IDP = 'https://idp.example.test';
const SP = 'https://atrium.example.com';
const ACS = `${SP}/v1/auth/saml/callback`;
const NOW = new Date('2026-03-01T12:00:00Z');

describe('validateSamlResponse', () => {
  let keys: IdpKeys;
  before(async () => {
    keys = await generateIdpKeys({ notBefore: new Date('2025-01-01'), notAfter: new Date('2030-01-01') });
  });

  const fields = (over: Partial<ResponseFields> = {}): ResponseFields => ({
    issuer: IDP,
    destination: ACS,
    recipient: ACS,
    audience: SP,
    inResponseTo: '_req1',
    nameId: 'ada@example.com',
    attributes: { email: 'ada@example.com' },
    now: NOW,
    notBeforeOffsetMs: -60_000,
    notOnOrAfterOffsetMs: 300_000,
    status: 'urn:oasis:names:tc:SAML:2.0:status:Success',
    assertionId: '_assert1',
    responseId: '_resp1',
    ...over,
  });
  const check = (xml: string, now = NOW) =>
    validateSamlResponse({ samlResponse: b64(xml), idpEntityId: IDP, idpCertificate: keys.certPem, spEntityId: SP, acsUrl: ACS, now, skewMs: 120_000 });
  const codes = (r: { problems: Array<{ code: string }> }) => r.problems.map((p) => p.code);

  it('accepts a valid response and extracts the signed values', async () => {
    const xml = sign(responseXml(fields({ attributes: { email: 'ada@example.com', memberOf: ['a', 'b'] } })), keys);
    const r = await check(xml);
    assert.equal(r.fatal, null);
    assert.deepEqual(r.problems, []);
    assert.equal(r.assertion?.assertionId, '_assert1');
    assert.equal(r.assertion?.inResponseTo, '_req1');
    assert.equal(r.assertion?.nameId, 'ada@example.com');
    assert.deepEqual(r.assertion?.attributes, { email: 'ada@example.com', memberOf: ['a', 'b'] });
    assert.equal(r.assertion?.notOnOrAfter.toISOString(), new Date(NOW.getTime() + 300_000).toISOString());
  });

  it('applies the skew allowance exactly at its edges', async () => {
    const xml = sign(responseXml(fields({ notBeforeOffsetMs: 100_000 })), keys);
    assert.deepEqual(codes(await check(xml)), []);
    assert.ok(codes(await check(xml, new Date(NOW.getTime() - 30_000))).includes('sso_clock_skew'));
    const late = sign(responseXml(fields()), keys);
    assert.deepEqual(codes(await check(late, new Date(NOW.getTime() + 300_000 + 119_000))), []);
    assert.ok(codes(await check(late, new Date(NOW.getTime() + 300_000 + 121_000))).includes('saml_response_expired'));
  });

  it('checks the unsigned response envelope too: its Issuer and Destination', async () => {
    const signed = sign(responseXml(fields()), keys);
    const otherIssuer = signed.replace(`<saml:Issuer>${IDP}</saml:Issuer><samlp:Status>`, '<saml:Issuer>https://evil.test</saml:Issuer><samlp:Status>');
    assert.notEqual(otherIssuer, signed);
    assert.deepEqual(codes(await check(otherIssuer)), ['saml_issuer_mismatch']);
  });

  it('requires an AudienceRestriction, and valid timestamps', async () => {
    const noAudience = responseXml(fields()).replace(/<saml:AudienceRestriction>.*<\/saml:AudienceRestriction>/, '');
    assert.deepEqual(codes(await check(sign(noAudience, keys))), ['saml_audience_mismatch']);
    const badTime = responseXml(fields()).replace(/(<saml:Conditions NotBefore=")[^"]+/, '$1yesterday');
    assert.ok(codes(await check(sign(badTime, keys))).includes('saml_malformed'));
  });

  it('refuses encrypted assertions, a non-Response root, and a response holding none', async () => {
    const enc = responseXml(fields()).replace(/<saml:Assertion [\s\S]*<\/saml:Assertion>/, '<saml:EncryptedAssertion/>');
    assert.equal((await check(enc)).fatal?.code, 'saml_encrypted_assertion_unsupported');
    const none = responseXml(fields()).replace(/<saml:Assertion [\s\S]*<\/saml:Assertion>/, '');
    assert.equal((await check(none)).fatal?.code, 'saml_malformed');
    const refused = responseXml(fields({ status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' })).replace(/<saml:Assertion [\s\S]*<\/saml:Assertion>/, '');
    assert.equal((await check(refused)).fatal?.code, 'saml_status_not_success');
    assert.equal((await check('<foo xmlns="urn:x"/>')).fatal?.code, 'saml_malformed');
  });

  it('refuses a bearer confirmation without NotOnOrAfter and a non-bearer method', async () => {
    const noExpiry = responseXml(fields()).replace(/(<saml:SubjectConfirmationData[^>]*) NotOnOrAfter="[^"]+"/, '$1');
    const r = await check(sign(noExpiry, keys));
    assert.equal(r.fatal?.code, 'saml_malformed', JSON.stringify(r.problems));
    const holder = responseXml(fields()).replace('cm:bearer', 'cm:holder-of-key');
    assert.ok(codes(await check(sign(holder, keys))).includes('saml_subject_confirmation_invalid'));
  });
});
