// The service redirects a failed single sign-on to `/?sso_error=<code>` (src/http/routes/sso.ts `finish`), with the
// codes of src/auth/problems.ts. Anyone can craft such a link, so the console shows only its own text: a known
// code gets its message, anything else the generic one. The parameter's text is never displayed.

export const SSO_FAILED = 'Single sign-on failed.';

const MESSAGES: Readonly<Record<string, string>> = {
  sso_not_configured: 'Single sign-on is not configured for this organization. Sign in with an API key, or ask an administrator.',
  sso_https_required: 'Single sign-on needs HTTPS. Open the console at its https:// address and try again.',
  sso_idp_unreachable: 'The identity provider could not be reached. Try again later, or ask an administrator.',
  sso_idp_certificate_expired: 'The identity provider’s certificate has expired. An administrator must upload a new certificate.',
  sso_idp_certificate_invalid: 'The identity provider’s certificate is not valid. An administrator must upload the correct certificate.',
  sso_clock_skew: 'The clocks of this service and the identity provider differ too much. An administrator must synchronize server time.',
  sso_attribute_not_mapped: 'The identity provider did not send the expected user attributes (email). An administrator must fix the attribute mapping.',
  sso_callback_mismatch: 'The identity provider sent you back to a different address than expected. An administrator must check the callback URL.',
  sso_email_unverified: 'Your identity provider reports your email address as unverified. Verify it there, then try again.',
  sso_user_disabled: 'Your account is disabled. Ask an administrator.',
  saml_malformed: 'The identity provider’s answer could not be read. Try again; if it keeps failing, ask an administrator.',
  saml_doctype_forbidden: 'The identity provider’s answer was refused as unsafe. Ask an administrator.',
  saml_multiple_assertions: 'The identity provider’s answer was refused: it must contain exactly one assertion. Ask an administrator.',
  saml_encrypted_assertion_unsupported: 'The identity provider sent an encrypted assertion, which is not accepted. An administrator must turn off assertion encryption.',
  saml_signature_missing: 'The identity provider’s answer is not signed. An administrator must configure signing.',
  saml_signature_invalid: 'The identity provider’s signature did not verify. An administrator must check the configured certificate.',
  saml_weak_algorithm: 'The identity provider signs with an algorithm that is not accepted. An administrator must configure RSA-SHA256 or stronger.',
  saml_status_not_success: 'The identity provider refused the sign-in.',
  saml_issuer_mismatch: 'The answer came from an identity provider other than the configured one. Ask an administrator.',
  saml_audience_mismatch: 'The identity provider’s answer was meant for another service. An administrator must check the audience setting.',
  saml_subject_confirmation_invalid: 'The identity provider’s answer was refused. Ask an administrator.',
  saml_response_expired: 'The sign-in took too long and expired. Sign in again.',
  saml_unknown_request: 'This sign-in was not started here, or it has expired. Start it again from this page.',
  saml_replay: 'This sign-in answer was already used. Sign in again.',
  oidc_discovery_failed: 'The identity provider’s configuration could not be read. Ask an administrator.',
  oidc_provider_error: 'The identity provider refused the sign-in.',
  oidc_state_invalid: 'This sign-in was not started here, or it has expired. Start it again from this page.',
  oidc_token_invalid: 'The identity provider’s answer could not be verified. Ask an administrator.',
};

/** The console's own message for an `sso_error` code; null when there is none to show. */
export function ssoErrorMessage(code: string | null): string | null {
  if (code === null) return null;
  const message = Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : undefined;
  return message ? `${SSO_FAILED} ${message}` : SSO_FAILED;
}
