import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { type Problem, problem } from '../problems.ts';
import { ALLOWED_DIGEST_ALGORITHMS, ALLOWED_SIGNATURE_ALGORITHMS } from './algorithms.ts';
import { allByLocalName, elementChildren, firstChild, hasComment, hasDoctype, NS, parseXml, pureText } from './xml.ts';

export const MAX_SAML_RESPONSE_BYTES = 256 * 1024;
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

export interface SamlValidationInput {
  /** The base64 `SAMLResponse` form field, as posted. */
  readonly samlResponse: string;
  readonly idpEntityId: string;
  readonly idpCertificate: string;
  /** Our entity id, which is also the audience: the service's public URL. */
  readonly spEntityId: string;
  /** Our ACS URL: Recipient and Destination must equal it exactly. */
  readonly acsUrl: string;
  readonly now: Date;
  readonly skewMs: number;
}

export interface SamlAssertion {
  readonly assertionId: string;
  readonly issuer: string;
  readonly inResponseTo: string | null;
  readonly nameId: string;
  readonly nameIdFormat: string | null;
  readonly sessionIndex: string | null;
  /** When the assertion stops being usable: replay records are kept until then. */
  readonly notOnOrAfter: Date;
  readonly attributes: Record<string, string | string[]>;
}

/**
 * The outcome of checking a SAML response. `fatal` means nothing in it can be trusted (no assertion is returned);
 * otherwise `assertion` is the signature-verified assertion and `problems` lists every failed check. A sign-in is
 * accepted only with no fatal and no problems — and, separately, an outstanding InResponseTo and an unseen id.
 */
export interface SamlValidation {
  readonly fatal: Problem | null;
  readonly problems: Problem[];
  readonly assertion: SamlAssertion | null;
}

const fatal = (p: Problem): SamlValidation => ({ fatal: p, problems: [p], assertion: null });

function decode(samlResponse: string): string | null {
  const compact = samlResponse.replace(/\s+/g, '');
  if (!compact || compact.length > (MAX_SAML_RESPONSE_BYTES * 4) / 3 + 4 || !/^[A-Za-z0-9+/]+=*$/.test(compact)) return null;
  return Buffer.from(compact, 'base64').toString('utf8');
}

function dateAttr(el: Element | undefined, name: string): Date | null | 'invalid' {
  const v = el?.getAttribute(name);
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(v) ? 'invalid' : d;
}

/** Structural checks on the raw document, before any signature work: the XSW, DOCTYPE and algorithm defences. */
function checkStructure(xml: string): { problem: Problem } | { root: Element } {
  if (hasDoctype(xml)) return { problem: problem('saml_doctype_forbidden', 'the SAML response contains a DOCTYPE or ENTITY declaration') };
  const doc = parseXml(xml);
  if (!doc) return { problem: problem('saml_malformed', 'the SAML response is not well-formed XML') };
  const root = doc.documentElement!;
  if (root.namespaceURI !== NS.protocol || root.localName !== 'Response') {
    return { problem: problem('saml_malformed', 'the document is not a SAML 2.0 protocol Response') };
  }
  if (allByLocalName(doc, 'EncryptedAssertion').length > 0) {
    return { problem: problem('saml_encrypted_assertion_unsupported', 'encrypted assertions are not accepted') };
  }
  // Exactly one Assertion anywhere, as a direct child of the Response: wrapping attacks (XSW) need a second one,
  // hidden in Extensions, Object, another Assertion or the Signature.
  const assertions = allByLocalName(doc, 'Assertion');
  if (assertions.length === 0) {
    // IdPs answer a refused sign-in with a bare, often unsigned, error Status: say so rather than "malformed".
    const status = firstChild(firstChild(root, NS.protocol, 'Status'), NS.protocol, 'StatusCode')?.getAttribute('Value');
    if (status && status !== SUCCESS) return { problem: problem('saml_status_not_success', `the IdP answered with status ${status}`) };
  }
  if (assertions.length !== 1) {
    return { problem: problem(assertions.length === 0 ? 'saml_malformed' : 'saml_multiple_assertions', `the response holds ${assertions.length} assertions; exactly one is required`) };
  }
  const assertion = assertions[0]!;
  if (assertion.parentNode !== root || assertion.namespaceURI !== NS.assertion) {
    return { problem: problem('saml_multiple_assertions', 'the assertion is not a direct child of the Response') };
  }
  if (elementChildren(root, NS.protocol, 'Response').length > 0 || allByLocalName(doc, 'Response').length !== 1) {
    return { problem: problem('saml_multiple_assertions', 'the document holds more than one Response') };
  }
  // Comments are invisible to the canonicalized signature but not to naive text readers (NameID truncation).
  if (hasComment(assertion)) return { problem: problem('saml_malformed', 'the assertion contains XML comments') };
  const signatures = allByLocalName(doc, 'Signature').filter((s) => s.namespaceURI === NS.dsig);
  if (signatures.length === 0) return { problem: problem('saml_signature_missing', 'neither the response nor the assertion is signed') };
  for (const m of allByLocalName(doc, 'SignatureMethod')) {
    const alg = m.getAttribute('Algorithm') ?? '';
    if (!ALLOWED_SIGNATURE_ALGORITHMS.has(alg)) return { problem: problem('saml_weak_algorithm', `signature algorithm ${alg || '(none)'} is not accepted`) };
  }
  for (const m of allByLocalName(doc, 'DigestMethod')) {
    const alg = m.getAttribute('Algorithm') ?? '';
    if (!ALLOWED_DIGEST_ALGORITHMS.has(alg)) return { problem: problem('saml_weak_algorithm', `digest algorithm ${alg || '(none)'} is not accepted`) };
  }
  return { root };
}

function signatureProblem(err: unknown): Problem {
  const msg = err instanceof Error ? err.message : String(err);
  if (/multiple assertions/i.test(msg)) return problem('saml_multiple_assertions', 'the response holds more than one assertion');
  if (/signature|signed/i.test(msg)) return problem('saml_signature_invalid', 'the signature does not verify with the configured IdP certificate');
  // Anything else node-saml refuses is a malformed message (e.g. a missing or unparseable timestamp).
  return problem('saml_malformed', `the SAML response is malformed: ${msg.replace(/[^\w .,:'()-]/g, '').slice(0, 160)}`);
}

function readAttributes(assertion: Element): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const statement of elementChildren(assertion, NS.assertion, 'AttributeStatement')) {
    for (const attr of elementChildren(statement, NS.assertion, 'Attribute')) {
      const vals = elementChildren(attr, NS.assertion, 'AttributeValue')
        .map((v) => pureText(v))
        .filter((v): v is string => v !== null && v !== '');
      const value = vals.length === 1 ? vals[0]! : vals;
      for (const key of [attr.getAttribute('Name'), attr.getAttribute('FriendlyName')]) {
        if (key && !Object.hasOwn(out, key)) out[key] = value;
      }
    }
  }
  return out;
}

/**
 * Validates a SAML response: node-saml verifies the XML signature (response or assertion, the referenced bytes
 * only), and this function adds what node-saml leaves to us: strict structure (one assertion, no DOCTYPE, no
 * comments), RSA-SHA256+ only, Status, Issuer, Audience, Recipient, Destination and the time window, all read
 * from the verified assertion. InResponseTo and replay are checked by the caller against the database.
 */
// Linear security checklist (issue 27 exception to the ~100-line function rule): each check in order, read top to bottom.
export async function validateSamlResponse(input: SamlValidationInput): Promise<SamlValidation> {
  const xml = decode(input.samlResponse);
  if (xml === null) return fatal(problem('saml_malformed', 'SAMLResponse is not base64 or is too large'));
  const structure = checkStructure(xml);
  if ('problem' in structure) return fatal(structure.problem);
  const root = structure.root;

  const saml = new SAML({
    idpCert: input.idpCertificate,
    issuer: input.spEntityId,
    callbackUrl: input.acsUrl,
    audience: false,
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: -1,
    validateInResponseTo: ValidateInResponseTo.never,
  });
  let signedAssertionXml: string;
  try {
    const result = await saml.validatePostResponseAsync({ SAMLResponse: Buffer.from(xml, 'utf8').toString('base64') });
    if (!result.profile) return fatal(problem('saml_malformed', 'the response carries no assertion'));
    signedAssertionXml = result.profile.getAssertionXml!();
  } catch (err) {
    return fatal(signatureProblem(err));
  }
  const signedDoc = parseXml(signedAssertionXml);
  const assertion = signedDoc?.documentElement;
  if (assertion?.localName !== 'Assertion' || assertion.namespaceURI !== NS.assertion) {
    return fatal(problem('saml_malformed', 'the signed content is not an assertion'));
  }

  const problems: Problem[] = [];
  const now = input.now.getTime();
  const skew = input.skewMs;

  const statusCode = firstChild(firstChild(root, NS.protocol, 'Status'), NS.protocol, 'StatusCode')?.getAttribute('Value');
  if (statusCode !== SUCCESS) problems.push(problem('saml_status_not_success', `the IdP answered with status ${statusCode ?? '(none)'}`));

  const issuer = pureText(firstChild(assertion, NS.assertion, 'Issuer')) ?? '';
  if (issuer !== input.idpEntityId) problems.push(problem('saml_issuer_mismatch', `assertion Issuer '${issuer}' is not the configured idp_entity_id`));
  const responseIssuer = firstChild(root, NS.assertion, 'Issuer');
  if (responseIssuer && pureText(responseIssuer) !== input.idpEntityId) {
    problems.push(problem('saml_issuer_mismatch', `response Issuer '${pureText(responseIssuer) ?? ''}' is not the configured idp_entity_id`));
  }

  const destination = root.getAttribute('Destination');
  if (destination !== input.acsUrl) {
    problems.push(problem('sso_callback_mismatch', `response Destination '${destination ?? '(none)'}' is not our ACS URL ${input.acsUrl}`));
  }

  const subject = firstChild(assertion, NS.assertion, 'Subject');
  const nameIdEl = firstChild(subject, NS.assertion, 'NameID');
  const nameId = pureText(nameIdEl);
  if (!nameId) return fatal(problem('saml_malformed', 'the assertion has no plain-text NameID'));

  const bearer = elementChildren(subject!, NS.assertion, 'SubjectConfirmation').filter((c) => c.getAttribute('Method') === BEARER);
  const data = bearer.length === 1 ? firstChild(bearer[0], NS.assertion, 'SubjectConfirmationData') : undefined;
  let inResponseTo: string | null = null;
  let notOnOrAfter = new Date(now + 5 * 60_000);
  if (!data) {
    problems.push(problem('saml_subject_confirmation_invalid', 'the assertion needs exactly one bearer SubjectConfirmation with SubjectConfirmationData'));
  } else {
    const recipient = data.getAttribute('Recipient');
    if (recipient !== input.acsUrl) {
      problems.push(problem('sso_callback_mismatch', `SubjectConfirmationData Recipient '${recipient ?? '(none)'}' is not our ACS URL ${input.acsUrl}`));
    }
    const scdNotOnOrAfter = dateAttr(data, 'NotOnOrAfter');
    if (scdNotOnOrAfter === null || scdNotOnOrAfter === 'invalid') {
      problems.push(problem('saml_subject_confirmation_invalid', 'SubjectConfirmationData needs a valid NotOnOrAfter'));
    } else {
      notOnOrAfter = scdNotOnOrAfter;
      if (now >= scdNotOnOrAfter.getTime() + skew) {
        problems.push(problem('saml_response_expired', `the subject confirmation expired at ${scdNotOnOrAfter.toISOString()}`));
      }
    }
    const scdNotBefore = dateAttr(data, 'NotBefore');
    if (scdNotBefore instanceof Date && now < scdNotBefore.getTime() - skew) {
      problems.push(problem('sso_clock_skew', `the subject confirmation is not valid before ${scdNotBefore.toISOString()}; our clock reads ${input.now.toISOString()}`));
    }
    inResponseTo = data.getAttribute('InResponseTo') || null;
  }
  const responseInResponseTo = root.getAttribute('InResponseTo') || null;
  if (!inResponseTo) {
    problems.push(problem('saml_unknown_request', 'the assertion has no InResponseTo: only sign-ins started by this service are accepted'));
  } else if (responseInResponseTo && responseInResponseTo !== inResponseTo) {
    problems.push(problem('saml_unknown_request', 'the response and assertion InResponseTo differ'));
  }

  const conditions = elementChildren(assertion, NS.assertion, 'Conditions');
  if (conditions.length !== 1) {
    problems.push(problem('saml_audience_mismatch', 'the assertion needs exactly one Conditions element with an AudienceRestriction'));
  } else {
    const c = conditions[0]!;
    const notBefore = dateAttr(c, 'NotBefore');
    const condNotOnOrAfter = dateAttr(c, 'NotOnOrAfter');
    if (notBefore === 'invalid' || condNotOnOrAfter === 'invalid') {
      problems.push(problem('saml_malformed', 'Conditions carries an invalid timestamp'));
    }
    if (notBefore instanceof Date && now < notBefore.getTime() - skew) {
      problems.push(problem('sso_clock_skew', `the assertion is not valid before ${notBefore.toISOString()}; our clock reads ${input.now.toISOString()}`));
    }
    if (condNotOnOrAfter instanceof Date) {
      if (condNotOnOrAfter.getTime() < notOnOrAfter.getTime()) notOnOrAfter = condNotOnOrAfter;
      if (now >= condNotOnOrAfter.getTime() + skew) {
        problems.push(problem('saml_response_expired', `the assertion expired at ${condNotOnOrAfter.toISOString()}`));
      }
    }
    const restrictions = elementChildren(c, NS.assertion, 'AudienceRestriction');
    const ok =
      restrictions.length > 0 &&
      restrictions.every((r) => elementChildren(r, NS.assertion, 'Audience').some((a) => pureText(a) === input.spEntityId));
    if (!ok) problems.push(problem('saml_audience_mismatch', `the assertion's Audience is not ${input.spEntityId}`));
  }
  const issueInstant = dateAttr(assertion, 'IssueInstant');
  if (issueInstant instanceof Date && issueInstant.getTime() > now + skew && !problems.some((p) => p.code === 'sso_clock_skew')) {
    problems.push(problem('sso_clock_skew', `the assertion was issued at ${issueInstant.toISOString()}, after our clock's ${input.now.toISOString()}`));
  }

  const assertionId = assertion.getAttribute('ID') ?? '';
  if (!assertionId) return fatal(problem('saml_malformed', 'the assertion has no ID'));
  const authn = firstChild(assertion, NS.assertion, 'AuthnStatement');
  return {
    fatal: null,
    problems,
    assertion: {
      assertionId,
      issuer,
      inResponseTo,
      nameId,
      nameIdFormat: nameIdEl?.getAttribute('Format') || null,
      sessionIndex: authn?.getAttribute('SessionIndex') || null,
      notOnOrAfter,
      attributes: readAttributes(assertion),
    },
  };
}
