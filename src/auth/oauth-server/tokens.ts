import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Access tokens: `mcp_at_` + 256 random bits; refresh tokens `mcp_rt_`. Neither starts like an API key (`atr_`). */
export const ACCESS_TOKEN_PREFIX = 'mcp_at_';
export const REFRESH_TOKEN_PREFIX = 'mcp_rt_';
/** Lifetimes (docs/mcp.md "Sign in from Claude/ChatGPT"). */
export const ACCESS_TOKEN_TTL_S = 3600;
/** Each refresh token; rotation issues a new one (with a new lifetime) and spends the old one. */
export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** A grant ends this long after consent however often it is refreshed: the person consents again. */
export const GRANT_TTL_S = 90 * 86_400;
/** An authorization code is spent by its first use, and lapses after this long unused. */
export const CODE_TTL_S = 120;
/** How long the consent page (and an SSO round trip from it) may take. */
export const REQUEST_TTL_S = 10 * 60;
/** The one scope: use of the MCP endpoint with the permissions the person consented to. */
export const MCP_SCOPE = 'mcp';

export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function hashSecret(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export function isAccessToken(token: string): boolean {
  return token.startsWith(ACCESS_TOKEN_PREFIX);
}

/** RFC 7636: code_verifier is 43-128 characters of [A-Za-z0-9-._~]; the S256 challenge is its base64url SHA-256. */
export const PKCE_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
