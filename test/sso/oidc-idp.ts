// A real OpenID Provider for tests (panva's oidc-provider) on a loopback port, and a tiny cookie-keeping
// "browser" that walks its login and consent interactions without a real browser.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export interface TestAccount {
  readonly email: string;
  readonly email_verified?: boolean;
  readonly name?: string;
  readonly groups?: string[];
}

export interface TestOidcProvider {
  readonly issuer: string;
  close(): Promise<void>;
}

export async function startOidcProvider(opts: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accounts: Record<string, TestAccount>;
}): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    scopes: ['openid', 'profile', 'email', 'groups'],
    findAccount: async (_ctx: unknown, id: string) => {
      const account = opts.accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email_verified: true, ...account }) };
    },
    pkce: { required: () => true },
    cookies: { keys: ['atrium-test-oidc-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Follows an authorization URL like a browser: keeps the IdP's cookies, signs in as `account` on the login form
 * and grants consent, and returns the URL the IdP finally redirects to (our callback, with code and state).
 */
export async function signInAtIdp(authorizationUrl: string, account: string, redirectPrefix: string): Promise<URL> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  };
  let url = new URL(authorizationUrl);
  let method: 'GET' | 'POST' = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: cookieHeader(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body,
    });
    remember(res);
    method = 'GET';
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      url = new URL(res.headers.get('location')!, url);
      if (url.href.startsWith(redirectPrefix)) return url;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200 || !url.pathname.startsWith('/interaction/')) throw new Error(`unexpected IdP page ${res.status} ${url.pathname}: ${html.slice(0, 200)}`);
    // devInteractions posts both prompts back to the interaction URL.
    method = 'POST';
    body = /name="prompt" value="login"/.test(html)
      ? new URLSearchParams({ prompt: 'login', login: account, password: 'any' }).toString()
      : new URLSearchParams({ prompt: 'consent' }).toString();
  }
  throw new Error('too many redirects at the IdP');
}
