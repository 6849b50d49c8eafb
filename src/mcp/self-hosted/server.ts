import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTokenBucketLimiter, type Principal } from '../../access/index.ts';
import type { Logger } from '../../platform/log.ts';
import { McpHttpSessions, writeJsonRpcError } from '../http-sessions.ts';
import type { McpContext } from '../invoke.ts';
import { createRemoteBackend } from '../remote-backend.ts';
import { corsHeaders, defaultAllowedHosts, hostAllowed, originAllowed } from '../security.ts';
import { attachWebSocketEndpoint } from '../ws-endpoint.ts';
import type { SelfHostedConfig } from './config.ts';

/** Paths this server answers MCP on: the service's own path (drop-in) and the short `/mcp`. */
export const SELF_HOSTED_HTTP_PATHS = ['/v1/expose/mcp', '/mcp'] as const;
export const SELF_HOSTED_WS_PATH = '/v1/expose/mcp/ws';
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How long the key's tool list (its permissions at the service) is reused before asking again. */
const CALLER_TTL_MS = 60_000;

export interface SelfHostedServer {
  readonly url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * `atrium mcp-server`: the same MCP tools over Streamable HTTP and WebSocket, forwarded to an Atrium
 * service with one API key. The service enforces that key's permissions and audits every call; this
 * server adds its own rate limit (`rate_limit.requests_per_minute`) and the Origin/Host checks.
 * It does not authenticate its own clients: bind it where only trusted clients reach it.
 */
export async function startSelfHostedServer(config: SelfHostedConfig, log: Logger, opts: { fetch?: typeof fetch } = {}): Promise<SelfHostedServer> {
  const backend = createRemoteBackend({
    baseUrl: config.service_base_url,
    apiKey: config.service_api_key,
    timeoutMs: config.request_timeout_seconds * 1000,
    fetch: opts.fetch,
    forwardedBy: 'self_hosted',
  });
  let cached: { principal: Principal; at: number } | undefined;
  const caller = async (): Promise<Principal> => {
    const now = Date.now();
    if (!cached || now - cached.at > CALLER_TTL_MS) cached = { principal: await backend.caller(), at: now };
    return cached.principal;
  };
  // Fails fast on a wrong URL or key instead of at the first client.
  await caller();

  const perMinute = config.rate_limit.requests_per_minute;
  const ctx: McpContext = {
    backend,
    log: log.child({ component: 'mcp-server' }),
    now: () => Date.now(),
    rateLimiter: createTokenBucketLimiter({ perMinute, burst: perMinute }),
  };
  const allowedOrigins = config.allowed_origins;
  const allowedHosts = defaultAllowedHosts({ publicUrl: `http://${config.host}:${config.port}`, bindHost: config.host, extra: config.allowed_hosts });
  const sessions = new McpHttpSessions(ctx, { idleMs: 30 * 60_000 });

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      const status = (err as { status?: number }).status;
      if (status === 413) return writeJsonRpcError(res, 413, -32600, 'request body too large');
      ctx.log.error({ err }, 'MCP request failed');
      if (!res.headersSent) writeJsonRpcError(res, 502, -32603, 'the Atrium service could not be reached');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/health' && req.method === 'GET') return json(res, 200, { status: 'ok', service: config.service_base_url });
    if (!(SELF_HOSTED_HTTP_PATHS as readonly string[]).includes(path)) return json(res, 404, { error: { code: 'route_not_found', message: `no route ${req.method} ${path}` } });
    if (!['GET', 'POST', 'DELETE', 'OPTIONS'].includes(req.method ?? '')) {
      return json(res, 405, { error: { code: 'method_not_allowed', message: 'use POST, GET or DELETE' } }, { allow: 'GET, POST, DELETE, OPTIONS' });
    }
    if (!hostAllowed(req.headers.host, allowedHosts)) return json(res, 403, { error: { code: 'host_not_allowed', message: 'the Host header does not name this server' } });
    if (!originAllowed(req.headers.origin, allowedOrigins)) {
      return json(res, 403, { error: { code: 'origin_not_allowed', message: `origin ${req.headers.origin} is not allowed` } });
    }
    for (const [k, v] of Object.entries(corsHeaders(req.headers.origin, req.method === 'OPTIONS'))) res.setHeader(k, v);
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      const text = await readBody(req);
      try {
        body = text.trim() ? JSON.parse(text) : undefined;
      } catch {
        return writeJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      }
    }
    await sessions.handle(req, res, body, await caller());
  }

  const ws = attachWebSocketEndpoint(server, { path: SELF_HOSTED_WS_PATH, ctx, allowedOrigins, allowedHosts, authenticate: () => caller(), actAsCheckedUpstream: true });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${shownHost}:${port}`;
  log.info({ url, service: config.service_base_url }, 'atrium MCP server listening');
  return {
    url,
    async close() {
      await Promise.all([sessions.closeAll(), ws.close()]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
