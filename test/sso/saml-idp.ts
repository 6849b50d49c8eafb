// A signing SAML 2.0 identity provider for tests: real RSA keys, a real X.509 certificate, XML signatures made
// with xml-crypto (exclusive c14n, enveloped), and helpers that build the classic attacks on a signed response.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import * as x509 from '@peculiar/x509';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 } as const;
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

export interface IdpKeys {
  readonly privateKeyPem: string;
  readonly certPem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** A fresh RSA-2048 key and a self-signed certificate valid in [notBefore, notAfter]. */
export async function generateIdpKeys(opts: { notBefore?: Date; notAfter?: Date; cn?: string } = {}): Promise<IdpKeys> {
  const keys = (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex'),
    name: `CN=${opts.cn ?? 'Atrium Test IdP'}`,
    notBefore: opts.notBefore ?? new Date(Date.now() - 86_400_000),
    notAfter: opts.notAfter ?? new Date(Date.now() + 365 * 86_400_000),
    signingAlgorithm: RSA,
    keys,
  });
  return { privateKeyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), certPem: cert.toString('pem') };
}

export interface ResponseFields {
  issuer: string;
  destination: string | null;
  recipient: string;
  audience: string;
  inResponseTo: string | null;
  nameId: string;
  attributes: Record<string, string | string[]>;
  /** Assertion validity, relative to `now`. */
  now: Date;
  notBeforeOffsetMs: number;
  notOnOrAfterOffsetMs: number;
  status: string;
  assertionId: string;
  responseId: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The XML of an unsigned Response with one Assertion. */
export function responseXml(f: ResponseFields): string {
  const iso = (ms: number) => new Date(f.now.getTime() + ms).toISOString();
  const attrs = Object.entries(f.attributes)
    .map(
      ([name, v]) =>
        `<saml:Attribute Name="${esc(name)}">${(Array.isArray(v) ? v : [v]).map((x) => `<saml:AttributeValue>${esc(x)}</saml:AttributeValue>`).join('')}</saml:Attribute>`,
    )
    .join('');
  const irt = f.inResponseTo ? ` InResponseTo="${esc(f.inResponseTo)}"` : '';
  const dest = f.destination ? ` Destination="${esc(f.destination)}"` : '';
  return (
    `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${f.responseId}" Version="2.0" IssueInstant="${iso(0)}"${dest}${irt}>` +
    `<saml:Issuer>${esc(f.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${esc(f.status)}"/></samlp:Status>` +
    `<saml:Assertion xmlns:saml="${SAML}" ID="${f.assertionId}" Version="2.0" IssueInstant="${iso(0)}">` +
    `<saml:Issuer>${esc(f.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(f.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData${irt} NotOnOrAfter="${iso(f.notOnOrAfterOffsetMs)}" Recipient="${esc(f.recipient)}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(f.notBeforeOffsetMs)}" NotOnOrAfter="${iso(f.notOnOrAfterOffsetMs)}">` +
    `<saml:AudienceRestriction><saml:Audience>${esc(f.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s${f.assertionId}"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : '') +
    `</saml:Assertion></samlp:Response>`
  );
}

export type SignTarget = 'assertion' | 'response' | 'both';

const ALGS = {
  sha256: { sig: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', digest: 'http://www.w3.org/2001/04/xmlenc#sha256' },
  sha1: { sig: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
} as const;

function signElement(xml: string, keys: IdpKeys, localName: 'Assertion' | 'Response', alg: keyof typeof ALGS): string {
  const sig = new SignedXml({
    privateKey: keys.privateKeyPem,
    publicCert: keys.certPem,
    signatureAlgorithm: ALGS[alg].sig,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const xpath = localName === 'Assertion' ? "//*[local-name(.)='Assertion']" : "/*[local-name(.)='Response']";
  sig.addReference({
    xpath,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: ALGS[alg].digest,
  });
  // The signature goes right after the element's Issuer, as SAML's schema requires.
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: `${xpath}/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

/** Signs the assertion, the response, or both (assertion first, then the response around it). */
export function sign(xml: string, keys: IdpKeys, target: SignTarget = 'assertion', alg: keyof typeof ALGS = 'sha256'): string {
  let out = xml;
  if (target === 'assertion' || target === 'both') out = signElement(out, keys, 'Assertion', alg);
  if (target === 'response' || target === 'both') out = signElement(out, keys, 'Response', alg);
  return out;
}

export const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

// --- DOM helpers for crafting attacks ----------------------------------------------------------

export function parse(xml: string): Document {
  return new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
}
export function serialize(doc: Document | Node): string {
  return new XMLSerializer().serializeToString(doc as never);
}
export function one(doc: Document | Element, ns: string, name: string): Element {
  const el = (doc as Document).getElementsByTagNameNS(ns, name)[0];
  if (!el) throw new Error(`no ${name}`);
  return el;
}
function childSignature(el: Element): Element | null {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1 && (c as Element).localName === 'Signature' && (c as Element).namespaceURI === DSIG) return c as Element;
  }
  return null;
}
function setNameId(assertion: Element, value: string): void {
  const n = one(assertion, SAML, 'NameID');
  while (n.firstChild) n.removeChild(n.firstChild);
  n.appendChild(n.ownerDocument.createTextNode(value));
}
function withoutSignature(el: Element): Element {
  const copy = el.cloneNode(true) as Element;
  const s = childSignature(copy);
  if (s) copy.removeChild(s);
  return copy;
}

export const NS = { SAMLP, SAML, DSIG };

/** Removes every ds:Signature. */
export function stripSignatures(xml: string): string {
  const doc = parse(xml);
  for (const s of Array.from(doc.getElementsByTagNameNS(DSIG, 'Signature'))) s.parentNode!.removeChild(s);
  return serialize(doc);
}

/** Changes the NameID of a signed document (the signature no longer matches). */
export function tamperNameId(xml: string, value: string): string {
  const doc = parse(xml);
  setNameId(one(doc, SAML, 'Assertion'), value);
  return serialize(doc);
}

/** Splits the NameID text with a comment, the way CVE-2017-11428-style attacks do, after signing. */
export function injectNameIdComment(xml: string): string {
  const doc = parse(xml);
  const n = one(doc, SAML, 'NameID');
  const text = n.textContent ?? '';
  const at = text.indexOf('.evil') > 0 ? text.indexOf('.evil') : Math.floor(text.length / 2);
  while (n.firstChild) n.removeChild(n.firstChild);
  n.appendChild(doc.createTextNode(text.slice(0, at)));
  n.appendChild(doc.createComment('injected'));
  n.appendChild(doc.createTextNode(text.slice(at)));
  return serialize(doc);
}

/**
 * The eight XML signature wrapping variants (Somorovsky et al., "On Breaking SAML", 2012; SAML Raider's XSW1-8).
 * XSW1-2 target a signed Response, XSW3-8 a signed Assertion. Each returns a document whose signed part is intact
 * while a forged assertion for `evilNameId` sits where a careless processor would read it.
 */
export function xsw(variant: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8, signedXml: string, evilNameId: string): string {
  const doc = parse(signedXml);
  const response = doc.documentElement as unknown as Element;
  const assertion = one(doc, SAML, 'Assertion');
  switch (variant) {
    case 1:
    case 2: {
      // Forged response (new ID, forged assertion, keeps the signature); the original response is moved into the
      // signature (XSW1) or placed before it (XSW2), so the reference still resolves to signed bytes.
      const original = withoutSignature(response);
      const sig = childSignature(response)!;
      response.setAttribute('ID', '_evil_response');
      setNameId(assertion, evilNameId);
      const forgedAssertionSig = childSignature(assertion);
      if (forgedAssertionSig) assertion.removeChild(forgedAssertionSig);
      if (variant === 1) sig.appendChild(original);
      else response.insertBefore(original, sig);
      break;
    }
    case 3: {
      // Forged assertion (no signature, new ID) inserted before the signed one.
      const evil = withoutSignature(assertion);
      evil.setAttribute('ID', '_evil_assertion');
      setNameId(evil, evilNameId);
      response.insertBefore(evil, assertion);
      break;
    }
    case 4: {
      // Forged assertion wraps the signed original.
      const evil = withoutSignature(assertion);
      evil.setAttribute('ID', '_evil_assertion');
      setNameId(evil, evilNameId);
      response.replaceChild(evil, assertion);
      evil.appendChild(assertion);
      break;
    }
    case 5: {
      // Signed assertion modified in place (keeps its signature); an unsigned copy of the original appended.
      const original = withoutSignature(assertion);
      setNameId(assertion, evilNameId);
      response.appendChild(original);
      break;
    }
    case 6: {
      // As XSW5, with the original copy inside the forged assertion's signature.
      const original = withoutSignature(assertion);
      setNameId(assertion, evilNameId);
      childSignature(assertion)!.appendChild(original);
      break;
    }
    case 7: {
      // Original moved into an Extensions element; a forged unsigned assertion takes its place.
      const evil = withoutSignature(assertion);
      setNameId(evil, evilNameId);
      const ext = doc.createElementNS(SAMLP, 'samlp:Extensions');
      response.replaceChild(evil, assertion);
      response.insertBefore(ext, evil);
      ext.appendChild(assertion);
      break;
    }
    case 8: {
      // Forged assertion keeps the signature; the original (unsigned copy) sits in a ds:Object inside it.
      const original = withoutSignature(assertion);
      setNameId(assertion, evilNameId);
      const object = doc.createElementNS(DSIG, 'ds:Object');
      object.appendChild(original);
      childSignature(assertion)!.appendChild(object);
      break;
    }
  }
  return serialize(doc);
}

/** Decodes the AuthnRequest of an HTTP-Redirect binding URL. */
export function readAuthnRequest(location: string): { id: string; acs: string | null; issuer: string | null; relayState: string | null; xml: string } {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const doc = parse(xml);
  const root = doc.documentElement as unknown as Element;
  return {
    id: root.getAttribute('ID') ?? '',
    acs: root.getAttribute('AssertionConsumerServiceURL'),
    issuer: one(doc, SAML, 'Issuer').textContent,
    relayState: url.searchParams.get('RelayState'),
    xml,
  };
}
