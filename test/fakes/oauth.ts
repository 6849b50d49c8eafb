import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OAuth 2.0 authorization server (RFC 6749 + PKCE RFC 7636): the test plays the user at
 * `authorize()`, and `/token` answers the authorization_code and refresh_token grants like GitHub/Notion/Linear
 * do (JSON, `invalid_grant` errors), checking client credentials and the PKCE verifier.
 */
export interface FakeOAuth {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly grants: Record<string, string>[];
  /** Approves an authorization request (the user clicking "Authorize"): returns the code to send to redirect_uri. */
  authorize(url: string): string;
  /** Makes every refresh token invalid (the user revoked the app). */
  revokeAll(): void;
  close(): Promise<void>;
}

export interface FakeOAuthOptions {
  /** The access token the n-th grant issues (default `at-<n>`), e.g. a vendor fake's own token. */
  readonly accessToken?: (n: number) => string;
  /** Fields the vendor adds to its token answer (Slack: `ok`, `team`, `bot_user_id`). */
  readonly extra?: Record<string, unknown>;
}

export async function startFakeOAuth(client: { id: string; secret: string }, opts: FakeOAuthOptions = {}): Promise<FakeOAuth> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const refresh = new Set<string>();
  const grants: Record<string, string>[] = [];
  let issued = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      const form = Object.fromEntries(new URLSearchParams(raw));
      grants.push(form);
      if (form.client_id !== client.id || form.client_secret !== client.secret) return reply(401, { error: 'invalid_client' });
      const tokens = () => {
        issued++;
        const rt = `rt-${issued}-${randomBytes(4).toString('hex')}`;
        refresh.add(rt);
        return { ...opts.extra, access_token: opts.accessToken?.(issued) ?? `at-${issued}`, token_type: 'bearer', expires_in: 3600, refresh_token: rt, scope: 'repo read:org read:discussion' };
      };
      if (form.grant_type === 'authorization_code') {
        const c = form.code ? codes.get(form.code) : undefined;
        // Some providers echo what they refuse: the code (and, here, the client secret) come back in the description.
        if (!c) return reply(400, { error: 'invalid_grant', error_description: `unknown code ${form.code ?? ''} for client ${form.client_id}:${form.client_secret}` });
        codes.delete(form.code ?? '');
        const verified = createHash('sha256').update(form.code_verifier ?? '').digest('base64url') === c.challenge;
        if (!verified) return reply(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        if (form.redirect_uri !== c.redirectUri) return reply(400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
        return reply(200, tokens());
      }
      if (form.grant_type === 'refresh_token') {
        if (!form.refresh_token || !refresh.has(form.refresh_token)) return reply(400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
        refresh.delete(form.refresh_token);
        return reply(200, tokens());
      }
      return reply(400, { error: 'unsupported_grant_type' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    authorizeUrl: `${base}/login/oauth/authorize`,
    tokenUrl: `${base}/login/oauth/access_token`,
    grants,
    authorize(url) {
      const u = new URL(url);
      if (u.searchParams.get('client_id') !== client.id) throw new Error('wrong client_id');
      if (u.searchParams.get('code_challenge_method') !== 'S256') throw new Error('PKCE S256 required');
      const code = `code-${randomBytes(6).toString('hex')}`;
      codes.set(code, { challenge: u.searchParams.get('code_challenge') ?? '', redirectUri: u.searchParams.get('redirect_uri') ?? '' });
      return code;
    },
    revokeAll: () => refresh.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
