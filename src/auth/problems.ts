/**
 * Why a sign-on or an SSO configuration failed: a stable code, a message, and the remedy an admin can act on.
 * The four causes the spec names (expired IdP certificate, clock skew, attribute not mapped, redirect loop /
 * callback mismatch) have their own codes and the spec's remedy text.
 */
export const PROBLEMS = {
  sso_idp_certificate_expired: { status: 401, remedy: 'upload a new certificate' },
  sso_idp_certificate_invalid: { status: 400, remedy: 'upload the IdP signing certificate as PEM (-----BEGIN CERTIFICATE-----)' },
  sso_clock_skew: { status: 401, remedy: 'synchronize server time' },
  sso_attribute_not_mapped: { status: 401, remedy: 'fix attribute_mapping' },
  sso_callback_mismatch: { status: 401, remedy: 'callback URL must match exactly' },
  sso_not_configured: { status: 400, remedy: 'configure SAML or OIDC with POST /v1/auth/sso/saml or /v1/auth/sso/oidc' },
  sso_https_required: { status: 403, remedy: 'use https, or set ATRIUM_TRUST_PROXY=true behind a TLS-terminating proxy that sends X-Forwarded-Proto' },
  sso_idp_unreachable: { status: 502, remedy: 'check the IdP URL and that the service can reach it' },
  saml_malformed: { status: 400, remedy: 'send the base64 SAMLResponse exactly as the IdP posted it' },
  saml_doctype_forbidden: { status: 400, remedy: 'the IdP must not send DOCTYPE declarations; this looks like an attack' },
  saml_multiple_assertions: { status: 401, remedy: 'the IdP must send exactly one assertion' },
  saml_encrypted_assertion_unsupported: { status: 401, remedy: 'turn off assertion encryption at the IdP (TLS protects the POST)' },
  saml_signature_missing: { status: 401, remedy: 'configure the IdP to sign the assertion or the response' },
  saml_signature_invalid: { status: 401, remedy: 'check that idp_certificate is the IdP signing certificate currently in use' },
  saml_weak_algorithm: { status: 401, remedy: 'configure the IdP to sign with RSA-SHA256 or stronger (SHA-1 is rejected)' },
  saml_status_not_success: { status: 401, remedy: 'the IdP refused the sign-in; see its logs for the user' },
  saml_issuer_mismatch: { status: 401, remedy: 'idp_entity_id must equal the Issuer the IdP sends' },
  saml_audience_mismatch: { status: 401, remedy: 'set the audience / SP entity id at the IdP to the service public URL' },
  saml_subject_confirmation_invalid: { status: 401, remedy: 'the IdP must send a bearer SubjectConfirmation' },
  saml_response_expired: { status: 401, remedy: 'sign in again; if fresh sign-ins fail too, synchronize server time' },
  saml_unknown_request: { status: 401, remedy: 'start sign-in from GET /v1/auth/sso/login (IdP-initiated sign-on is not accepted)' },
  saml_replay: { status: 401, remedy: 'this assertion was already used; sign in again' },
  sso_egress_denied: { status: 400, remedy: 'use a public address for the IdP, or list its host or range in ATRIUM_EGRESS_ALLOW' },
  oidc_discovery_failed: { status: 400, remedy: 'issuer_url must serve /.well-known/openid-configuration with a matching issuer' },
  oidc_provider_error: { status: 401, remedy: 'the IdP refused the sign-in; see its logs for the user' },
  oidc_state_invalid: { status: 401, remedy: 'start sign-in again from GET /v1/auth/sso/login; callback URL must match exactly' },
  oidc_token_invalid: { status: 401, remedy: 'check client_id, client_secret and the IdP signing keys' },
  sso_email_unverified: { status: 401, remedy: 'verify the email address at the IdP' },
  sso_user_disabled: { status: 403, remedy: 'an admin disabled this user' },
} as const satisfies Record<string, { status: number; remedy: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface Problem {
  readonly code: ProblemCode;
  readonly message: string;
  readonly remedy: string;
}

export function problem(code: ProblemCode, message: string): Problem {
  return { code, message, remedy: PROBLEMS[code].remedy };
}
