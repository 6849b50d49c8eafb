import * as client from 'openid-client';
import { isLoopbackUrl } from './https.ts';
import { type Problem, problem } from './problems.ts';

export const OIDC_CALLBACK_PATH = '/v1/auth/oidc/callback';

function executeOptions(issuer: URL) {
  // Plain-HTTP issuers are accepted only on loopback (a development IdP); anything else must be HTTPS.
  return isLoopbackUrl(issuer) ? [client.allowInsecureRequests] : [];
}

/**
 * Fetches and validates the issuer's discovery document at save time: it must be reachable, its `issuer` must
 * equal issuer_url (openid-client checks), and it must support the authorization code flow with a JWKS.
 */
export async function discoverIssuer(
  issuerUrl: string,
  clientId: string,
  clientSecret: string,
): Promise<{ metadata: Record<string, unknown> } | { problem: Problem }> {
  let url: URL;
  try {
    url = new URL(issuerUrl);
  } catch {
    return { problem: problem('oidc_discovery_failed', 'issuer_url is not a URL') };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) {
    return { problem: problem('oidc_discovery_failed', 'issuer_url must be https (plain http only for a loopback development IdP)') };
  }
  try {
    const config = await client.discovery(url, clientId, clientSecret, undefined, { execute: executeOptions(url), timeout: 10 });
    const m = config.serverMetadata();
    const missing = (['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const).filter((k) => !m[k]);
    if (missing.length) return { problem: problem('oidc_discovery_failed', `the discovery document lacks ${missing.join(', ')}`) };
    if (m.response_types_supported && !m.response_types_supported.includes('code')) {
      return { problem: problem('oidc_discovery_failed', 'the IdP does not support the authorization code flow') };
    }
    if (m.code_challenge_methods_supported && !m.code_challenge_methods_supported.includes('S256')) {
      return { problem: problem('oidc_discovery_failed', 'the IdP does not support PKCE with S256') };
    }
    return { metadata: JSON.parse(JSON.stringify(m)) as Record<string, unknown> };
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { problem: problem('oidc_discovery_failed', `discovery at ${url.origin} failed: ${detail.slice(0, 200)}`) };
  }
}

/** A client configuration from the stored discovery document; our clock and skew allowance drive JWT checks. */
export function oidcClient(input: {
  metadata: Record<string, unknown>;
  clientId: string;
  clientSecret: string;
  now: Date;
  skewSeconds: number;
}): client.Configuration {
  const server = input.metadata as unknown as client.ServerMetadata;
  const methods = (input.metadata.token_endpoint_auth_methods_supported as string[] | undefined) ?? ['client_secret_basic'];
  const auth = methods.includes('client_secret_basic') ? client.ClientSecretBasic(input.clientSecret) : client.ClientSecretPost(input.clientSecret);
  const config = new client.Configuration(
    server,
    input.clientId,
    {
      client_secret: input.clientSecret,
      [client.clockSkew]: Math.round((input.now.getTime() - Date.now()) / 1000),
      [client.clockTolerance]: input.skewSeconds,
    },
    auth,
  );
  if (isLoopbackUrl(new URL(String(input.metadata.issuer)))) client.allowInsecureRequests(config);
  config.timeout = 10;
  return config;
}

export interface OidcAuthorization {
  readonly url: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** Authorization request with state, nonce and PKCE (S256). */
export async function authorizationRequest(config: client.Configuration, redirectUri: string, scopes: readonly string[]): Promise<OidcAuthorization> {
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    response_type: 'code',
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, state, nonce, codeVerifier };
}

function classify(err: unknown): Problem {
  const e = err as { code?: string; error?: string; error_description?: string; message?: string };
  const msg = e?.message ?? String(err);
  if (e?.error) {
    const desc = e.error_description ? `: ${e.error_description}` : '';
    if (/redirect_uri/i.test(`${e.error}${desc}`)) return problem('sso_callback_mismatch', `the IdP rejected the redirect URI (${e.error}${desc})`);
    return problem('oidc_provider_error', `the IdP answered ${e.error}${desc}`);
  }
  if (e?.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED' || /"(iat|exp|nbf)" claim/.test(msg)) {
    return problem('sso_clock_skew', `the ID token's time claims do not fit our clock (${msg.slice(0, 120)})`);
  }
  if (/state/i.test(msg)) return problem('oidc_state_invalid', `state check failed: ${msg.slice(0, 120)}`);
  return problem('oidc_token_invalid', `the code exchange or ID token check failed: ${msg.slice(0, 160)}`);
}

/**
 * Exchanges the code (PKCE verifier), validates the ID token (signature, issuer, audience, nonce, time claims)
 * and merges UserInfo claims (fetched with the subject check). Returns the claims or the problem.
 */
export async function completeAuthorization(
  config: client.Configuration,
  currentUrl: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<{ claims: Record<string, unknown> } | { problem: Problem }> {
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) return { problem: problem('oidc_token_invalid', 'the IdP returned no ID token') };
    let claims: Record<string, unknown> = { ...idClaims };
    if (config.serverMetadata().userinfo_endpoint) {
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      // ID token claims win over UserInfo (fetchUserInfo already checked that the subjects match).
      claims = { ...info, ...idClaims };
    }
    return { claims };
  } catch (err) {
    return { problem: classify(err) };
  }
}
