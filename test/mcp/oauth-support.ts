// A minimal browser for OAuth tests (a cookie jar honouring Path, manual redirects) and an OAuthClientProvider for the
// official MCP SDK client that keeps everything in memory and captures the authorization URL instead of opening it.
import { createServer } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** A free TCP port on 127.0.0.1 (the service's public URL must name its real port before it starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

interface Cookie {
  readonly name: string;
  readonly value: string;
  readonly path: string;
}

export class Browser {
  private cookies: Cookie[] = [];

  cookieHeader(url: string): string {
    const path = new URL(url).pathname;
    return this.cookies
      .filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  has(name: string): boolean {
    return this.cookies.some((c) => c.name === name);
  }

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      const path = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const maxAge = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('max-age='));
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
      if (!(maxAge && Number(maxAge.slice(8)) <= 0)) this.cookies.push({ name, value, path });
    }
  }

  /** One request (no redirect following); a same-origin form POST carries the Origin header as a browser does. */
  async request(url: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookie = this.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    if (init.origin) headers.origin = init.origin;
    const res = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    this.store(res);
    return res;
  }
}

/** The value of a hidden `request_id` input on a consent page. */
export function requestIdOf(html: string): string {
  const m = /name="request_id" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no request_id on the page: ${html.slice(0, 500)}`);
  return m[1]!;
}

export class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  lastState = '';

  constructor(
    readonly redirect: string,
    readonly metadata: Partial<OAuthClientMetadata> = {},
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Test Client',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.metadata,
    };
  }
  state(): string {
    this.lastState = `st-${Math.random().toString(36).slice(2)}`;
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
