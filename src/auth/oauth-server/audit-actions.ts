/** `mcp.oauth.*` audit actions (docs/mcp.md "Sign in from Claude/ChatGPT"), readable with GET /v1/audit?action=mcp.oauth*. */
export const OAuthAudit = {
  /** A person consented: a grant and its code were issued (client, redirect URI, subject, permissions). */
  granted: 'mcp.oauth.granted',
  /** A person refused on the consent page. */
  denied: 'mcp.oauth.denied',
  /** A refresh of a known refresh token was refused (reuse, expiry, revoked grant, disabled user, revoked key). */
  refreshFailed: 'mcp.oauth.refresh_failed',
  /** A code exchange of a known code was refused (PKCE failure, expiry, redirect URI mismatch). */
  tokenRefused: 'mcp.oauth.token_refused',
  /** A grant was revoked: by its person or an admin (console/API), by its client (RFC 7009), or on code/refresh reuse. */
  revoked: 'mcp.oauth.revoked',
} as const;
