import type { PendingRequest } from './authorize.ts';
import { OAUTH_PATHS } from './metadata.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2.5rem auto;padding:0 1rem;line-height:1.5;color:#111}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;word-break:break-all}
form{margin:1rem 0}fieldset{border:1px solid #ccc;border-radius:6px;padding:.75rem 1rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
button{padding:.45rem 1rem;margin-right:.5rem;border-radius:4px;border:1px solid #555;background:#f4f4f4;cursor:pointer}button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
.error{background:#fee2e2;border:1px solid #fca5a5;padding:.5rem .75rem;border-radius:4px}.muted{color:#555;font-size:.9rem}`;

/** Security headers of every consent page: no framing (clickjacking), no scripts, forms only to here and the client. */
export function pageHeaders(redirectUri?: string): Record<string, string> {
  const target = redirectUri ? ` ${new URL(redirectUri).origin}` : '';
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${target}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    // Not no-referrer: with it Chromium sends `Origin: null` on the page's own form posts, which the same-origin
    // check refuses. same-origin still sends nothing to the client's redirect URI.
    'referrer-policy': 'same-origin',
  };
}

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function requestSummary(req: PendingRequest): string {
  return `<dl><dt>Application</dt><dd id="client-name">${esc(req.client.name)}</dd>
<dt>Returns to</dt><dd id="redirect-uri"><code>${esc(req.redirectUri)}</code></dd>
<dt>For</dt><dd><code>${esc(req.resource)}</code></dd></dl>`;
}

const hidden = (req: PendingRequest) => `<input type="hidden" name="request_id" value="${esc(req.id)}">`;

/** Step 1: nobody is signed in. SSO for a tenant that has it; an API key pasted once where it has none. */
export function signInPage(req: PendingRequest, opts: { tenantId: string; error?: string }): string {
  return layout(
    `Sign in to connect ${req.client.name}`,
    `<h1>Connect ${esc(req.client.name)} to Atrium</h1>
${opts.error ? `<p class="error" role="alert">${esc(opts.error)}</p>` : ''}
<p>An application asks to use Atrium’s MCP tools as you. Sign in to see what it would be granted.</p>
${requestSummary(req)}
<form method="get" action="${OAUTH_PATHS.authorize}/sso"><fieldset><legend>Sign in with your organization’s single sign-on</legend>
${hidden(req)}<label>Organization (tenant id)<input type="text" name="tenant_id" value="${esc(opts.tenantId)}" maxlength="100" required></label>
<p><button class="primary" type="submit">Sign in with SSO</button></p></fieldset></form>
<form method="post" action="${OAUTH_PATHS.authorize}/key"><fieldset><legend>No single sign-on? Paste an Atrium API key</legend>
${hidden(req)}<label>API key<input type="password" name="api_key" autocomplete="off" maxlength="256" required></label>
<p class="muted">The key is checked once and never given to the application: it receives its own short-lived token with the key’s permissions (organizations with single sign-on must use it).</p>
<p><button type="submit">Continue with this key</button></p></fieldset></form>
<form method="post" action="${OAUTH_PATHS.authorize}/decision">${hidden(req)}<button type="submit" name="decision" value="deny">Cancel</button></form>`,
  );
}

/** Step 2: the person is known; what the application would get, Allow or Deny. */
export function consentPage(req: PendingRequest, who: { label: string; tenantId: string; identity: string; permissions: string[] }): string {
  return layout(
    `Allow ${req.client.name}?`,
    `<h1>Allow ${esc(req.client.name)} to use Atrium as you?</h1>
${requestSummary(req)}
<dl><dt>Signed in as</dt><dd id="subject">${esc(who.label)}</dd><dt>Organization</dt><dd>${esc(who.tenantId)}</dd><dt>Reads as</dt><dd>${esc(who.identity)}</dd></dl>
<p>It will be able to:</p><ul id="granted">${who.permissions.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>
<p class="muted">Access tokens last an hour and are renewed with a refresh token for up to 90 days; revoke the access any time in the Atrium console (MCP page) or with DELETE /v1/oauth/grants/{id}.</p>
<form method="post" action="${OAUTH_PATHS.authorize}/decision">${hidden(req)}
<button class="primary" type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

export function errorPage(message: string): string {
  return layout('Cannot connect the application', `<h1>Cannot connect the application</h1><p class="error" role="alert">${esc(message)}</p><p class="muted">Start the connection again from the application.</p>`);
}

/**
 * After an SSO sign-in started from the consent page, the callback resumes the authorization request this cookie
 * names. SameSite=None: the SAML callback is a cross-site POST from the IdP. It holds only the request id (which
 * authorizes nothing without the browser binding cookie and a session).
 */
export const OAUTH_RETURN_COOKIE = 'atrium_oauth_return';
/** Binds an authorization request to the browser that opened it. */
export const OAUTH_FLOW_COOKIE = 'atrium_oauth_flow';

export function returnCookie(requestId: string, maxAgeSeconds: number): string {
  const expired = maxAgeSeconds <= 0 ? '; Expires=Thu, 01 Jan 1970 00:00:00 GMT' : '';
  return `${OAUTH_RETURN_COOKIE}=${encodeURIComponent(requestId)}; Path=/v1/auth; Max-Age=${Math.max(0, maxAgeSeconds)}; HttpOnly; Secure; SameSite=None${expired}`;
}

/** Where a completed SSO sign-in goes when it was started from a consent page: that page (built here, never taken from input). */
export function resumeLocation(publicUrl: string, requestId: string | undefined): string | null {
  if (!requestId || !/^oar_[A-Za-z0-9_-]{1,80}$/.test(requestId)) return null;
  return `${publicUrl}${OAUTH_PATHS.authorize}/resume?request_id=${encodeURIComponent(requestId)}`;
}
