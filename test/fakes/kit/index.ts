import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The base every vendor fake builds on: a real HTTP server on a free loopback port with a small router, a token
 * check, a request log, injected failures (429 with `Retry-After`, 5xx) and the two pagination styles vendors use
 * (offset/limit and opaque cursors). A vendor fake adds its routes and its wire shapes (error bodies, headers).
 */
export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly url: URL;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawBody: string;
  /** The body parsed as JSON (or as a form for `application/x-www-form-urlencoded`); undefined when empty. */
  readonly body: unknown;
  /** `:name` segments of the matched route. */
  readonly params: Record<string, string>;
  /** The bearer token (or whatever `tokenOf` read), null when none was sent. */
  readonly token: string | null;
}

export interface FakeReply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  readonly body?: string | Buffer;
}

export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly status: number;
  readonly token: string | null;
}

export interface VendorFakeOptions {
  /** For messages only. */
  readonly name: string;
  /** Tokens the fake accepts (revocable with `revoke`: with none left, every request is refused); omitted = no token check. */
  readonly tokens?: readonly string[];
  /** How this vendor's requests carry the credential; default `Authorization: Bearer <token>`. */
  readonly tokenOf?: (req: { headers: http.IncomingHttpHeaders; query: URLSearchParams; body: unknown }) => string | null;
  /** Paths that need no token (an OAuth token endpoint). */
  readonly publicPath?: (path: string) => boolean;
  /** The vendor's answer to a missing or wrong token; default 401 `{ error: 'unauthorized' }`. */
  readonly unauthorized?: (req: FakeRequest) => FakeReply;
  /** The vendor's rate-limit answer (the kit adds `Retry-After` unless the reply sets it to ''); default 429 `{ error: 'rate_limited' }`. */
  readonly rateLimited?: (retryAfterSeconds: number) => FakeReply;
  /** The vendor's 5xx answer; default `{ error: 'internal' }` with the injected status. */
  readonly serverError?: (status: number) => FakeReply;
}

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: string[];
  readonly handler: FakeHandler;
}

interface Injected {
  remaining: number;
  readonly kind: 'rate_limit' | 'server_error' | 'slow';
  readonly status: number;
  readonly retryAfterSeconds: number;
  readonly match: (req: FakeRequest) => boolean;
}

export const bearerToken = ({ headers }: { headers: http.IncomingHttpHeaders }): string | null => {
  const h = headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7) : null;
};

function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        // `:name*` takes the rest of the path (file paths with slashes).
        const rest = seg.endsWith('*');
        names.push(rest ? seg.slice(1, -1) : seg.slice(1));
        return rest ? '(.+)' : '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), names };
}

function parseBody(raw: string, contentType: string | undefined): unknown {
  if (!raw) return undefined;
  if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export class VendorFake {
  readonly requests: LoggedRequest[] = [];
  private readonly routes: Route[] = [];
  private readonly injected: Injected[] = [];
  private readonly tokens: Set<string>;
  /** Whether requests must carry a known token: true once `tokens` was given or `allow` called, even after every token was revoked. */
  private checksTokens: boolean;
  private server: http.Server | null = null;
  private base = '';

  constructor(readonly options: VendorFakeOptions) {
    this.tokens = new Set(options.tokens ?? []);
    this.checksTokens = options.tokens !== undefined;
  }

  /** The fake's base URL (`http://127.0.0.1:<port>`), once started. */
  get url(): string {
    if (!this.base) throw new Error(`${this.options.name} fake is not started`);
    return this.base;
  }

  /** A route: `method` (or `*` for any), `path` with `:name` segments (`:name*` takes the rest of the path). */
  route(method: string, path: string, handler: FakeHandler): this {
    const { pattern, names } = compile(path);
    this.routes.push({ method: method.toUpperCase(), pattern, names, handler });
    return this;
  }

  /** The next `count` matching requests answer 429 with `Retry-After: retryAfterSeconds`. */
  rateLimitNext(count: number, retryAfterSeconds = 1, match: (req: FakeRequest) => boolean = () => true): this {
    this.injected.push({ remaining: count, kind: 'rate_limit', status: 429, retryAfterSeconds, match });
    return this;
  }

  /** The next `count` matching requests answer `status` (default 500). */
  failNext(count: number, status = 500, match: (req: FakeRequest) => boolean = () => true): this {
    this.injected.push({ remaining: count, kind: 'server_error', status, retryAfterSeconds: 0, match });
    return this;
  }

  /** The next `count` matching requests are answered normally, but only after `ms` (a hung or slow vendor). */
  slowNext(count: number, ms: number, match: (req: FakeRequest) => boolean = () => true): this {
    this.injected.push({ remaining: count, kind: 'slow', status: ms, retryAfterSeconds: 0, match });
    return this;
  }

  /** The token stops working (a user revoked the app or the token). */
  revoke(token: string): this {
    this.tokens.delete(token);
    return this;
  }

  allow(token: string): this {
    this.checksTokens = true;
    this.tokens.add(token);
    return this;
  }

  /** Logged requests whose path matches. */
  requestsTo(path: string | RegExp): LoggedRequest[] {
    return this.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req, Buffer.concat(chunks).toString('utf8'))
          .then((reply) => this.send(res, reply))
          .catch((err: unknown) => this.send(res, { status: 500, json: { error: 'fake_crashed', message: err instanceof Error ? err.message : String(err) } }));
      });
    });
    // Longer than a test ever leaves a connection idle, even on a loaded machine whose event loop stalls for seconds:
    // Node's default (5 s) closes sockets the client still means to reuse (ECONNRESET), which is not what a test checks.
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, rawBody: string): Promise<FakeReply & { logged: Omit<LoggedRequest, 'status'> }> {
    const url = new URL(req.url ?? '/', this.base);
    const method = (req.method ?? 'GET').toUpperCase();
    const body = parseBody(rawBody, req.headers['content-type']);
    const token = (this.options.tokenOf ?? bearerToken)({ headers: req.headers, query: url.searchParams, body });
    const logged = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), token };
    const base = { method, path: url.pathname, url, query: url.searchParams, headers: req.headers, rawBody, body, token };
    const open = this.options.publicPath?.(url.pathname) ?? false;
    if (!open && this.checksTokens && (!token || !this.tokens.has(token))) {
      return { ...(this.options.unauthorized?.({ ...base, params: {} }) ?? { status: 401, json: { error: 'unauthorized' } }), logged };
    }
    const fault = this.injected.find((f) => f.remaining > 0 && f.match({ ...base, params: {} }));
    if (fault?.kind === 'slow') {
      fault.remaining--;
      await new Promise((resolve) => setTimeout(resolve, fault.status));
    } else if (fault) {
      fault.remaining--;
      if (fault.kind === 'rate_limit') {
        const reply = this.options.rateLimited?.(fault.retryAfterSeconds) ?? { status: 429, json: { error: 'rate_limited' } };
        // The kit adds Retry-After; a vendor whose rate-limit answer has none (Linear's GraphQL error) sets it to ''.
        const headers: Record<string, string> = { 'retry-after': String(fault.retryAfterSeconds), ...reply.headers };
        if (headers['retry-after'] === '') delete headers['retry-after'];
        return { ...reply, headers, logged };
      }
      return { ...(this.options.serverError?.(fault.status) ?? { json: { error: 'internal' } }), status: fault.status, logged };
    }
    for (const r of this.routes) {
      if (r.method !== method && r.method !== '*') continue;
      const m = r.pattern.exec(url.pathname);
      if (!m) continue;
      const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1] ?? '')]));
      return { ...(await r.handler({ ...base, params })), logged };
    }
    return { status: 404, json: { error: 'not_found', message: `${this.options.name} fake has no route ${method} ${url.pathname}` }, logged };
  }

  private send(res: http.ServerResponse, reply: FakeReply & { logged?: Omit<LoggedRequest, 'status'> }): void {
    const status = reply.status ?? 200;
    if (reply.logged) this.requests.push({ ...reply.logged, status });
    const headers: Record<string, string> = { ...reply.headers };
    let body: string | Buffer = '';
    if (reply.json !== undefined) {
      headers['content-type'] ??= 'application/json; charset=utf-8';
      body = JSON.stringify(reply.json);
    } else if (reply.body !== undefined) body = reply.body;
    res.writeHead(status, headers);
    res.end(body);
  }
}

/** One offset page: `items[start, start + limit)` and the next start, or null after the last page. */
export function offsetPage<T>(items: readonly T[], start: number, limit: number): { items: T[]; next: number | null; total: number } {
  const s = Math.max(0, start);
  const page = items.slice(s, s + limit);
  return { items: page, next: s + limit < items.length ? s + limit : null, total: items.length };
}

/** Opaque cursors over a list (base64url of the next index), as vendors hand out `nextPageToken` / `cursor`. */
export function cursorPage<T>(items: readonly T[], cursor: string | null | undefined, limit: number): { items: T[]; next: string | null } {
  let start = 0;
  if (cursor) {
    const n = Number(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^i:/, ''));
    if (!Number.isInteger(n) || n < 0) throw new Error(`bad cursor ${cursor}`);
    start = n;
  }
  const page = offsetPage(items, start, limit);
  return { items: page.items, next: page.next === null ? null : Buffer.from(`i:${page.next}`).toString('base64url') };
}

/** An OAuth 2.0 token endpoint handler (authorization_code and refresh_token grants), for fakes of OAuth vendors. */
export function oauthTokenEndpoint(fake: VendorFake, opts: { code: string; issue: () => { access_token: string; refresh_token?: string; expires_in?: number } & Record<string, unknown> }): FakeHandler {
  return (req) => {
    const body = (req.body ?? {}) as Record<string, string>;
    if (body.grant_type === 'authorization_code' && body.code === opts.code) {
      const t = opts.issue();
      fake.allow(t.access_token);
      return { json: { token_type: 'Bearer', ...t } };
    }
    if (body.grant_type === 'refresh_token' && body.refresh_token) {
      const t = opts.issue();
      fake.allow(t.access_token);
      return { json: { token_type: 'Bearer', ...t } };
    }
    return { status: 400, json: { error: 'invalid_grant', error_description: 'bad code or refresh token' } };
  };
}
