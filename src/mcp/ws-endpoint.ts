import { type Server as HttpServer, type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { can, type Principal } from '../access/index.ts';
import { ACT_AS_HEADER, looksLikeEmail } from '../identity/index.ts';
import { isAppError } from '../platform/errors.ts';
import type { McpContext } from './invoke.ts';
import { hostAllowed, originAllowed } from './security.ts';
import { serveConnection } from './connection.ts';
import { MCP_SUBPROTOCOL, WebSocketTransport } from './ws-transport.ts';

export interface WebSocketEndpointOptions {
  readonly path: string;
  readonly ctx: McpContext;
  readonly allowedOrigins: readonly string[];
  readonly allowedHosts: readonly string[];
  /**
   * Resolves the bearer token (undefined when absent) to a principal, null = refuse; checked on upgrade (with the
   * client's address, for the failed-attempt limit: an AppError 429 refuses the upgrade with it) and before each message.
   */
  authenticate(token: string | undefined, client?: string): Promise<Principal | null>;
  /**
   * True when the backend's own service checks `act_as` (the self-hosted server forwards the name with its key, and
   * the service refuses it without the permission): the endpoint passes the name on instead of checking it here.
   */
  readonly actAsCheckedUpstream?: boolean;
  /** Largest accepted frame (bytes); default MCP_MAX_MESSAGE_BYTES. */
  readonly maxPayload?: number;
  /** Ping interval; a socket that has not answered the previous ping is dropped (dead peers, half-open TCP). */
  readonly heartbeatMs?: number;
}

/**
 * The largest MCP message accepted, whatever the transport: a WebSocket frame, a Streamable HTTP POST body.
 * Tool arguments are a query and a few ids, an action intent with its context: far below this.
 */
export const MCP_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

function reject(socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: { code, message } });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

function bearer(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/** The query parameter naming the acting person, for WebSocket clients that cannot set headers (browsers). */
export const ACT_AS_PARAM = 'act_as';

/**
 * The person the upgrade request names (`X-Atrium-Act-As`, or `?act_as=` for clients that cannot set headers),
 * undefined when none; a string error when the request is malformed (two different names, not an email).
 */
function actAsOf(req: IncomingMessage, url: URL): { actAs?: string } | { error: string } {
  const header = req.headers[ACT_AS_HEADER];
  if (Array.isArray(header)) return { error: 'send one X-Atrium-Act-As header' };
  const params = url.searchParams.getAll(ACT_AS_PARAM);
  if (params.length > 1) return { error: `send one ${ACT_AS_PARAM} parameter` };
  const named = [header?.trim(), params[0]?.trim()].filter((v): v is string => v !== undefined && v !== '');
  if (named.length === 0) return {};
  if (named.length === 2 && named[0]!.toLowerCase() !== named[1]!.toLowerCase()) return { error: `X-Atrium-Act-As and ?${ACT_AS_PARAM}= name different people` };
  if (!looksLikeEmail(named[0]!)) return { error: `${ACT_AS_HEADER} must be an email address` };
  return { actAs: named[0]! };
}

/**
 * MCP over WebSocket on an existing HTTP server: the `Authorization: Bearer` key is checked on the
 * upgrade request (401 refuses the upgrade), Origin and Host as for Streamable HTTP (403). The connection reads as the
 * person `X-Atrium-Act-As` or `?act_as=` names (a credential with `act_as` only, else 403), else as the key itself.
 */
export function attachWebSocketEndpoint(http: HttpServer, opts: WebSocketEndpointOptions): { close(): Promise<void> } {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxPayload ?? MCP_MAX_MESSAGE_BYTES,
    handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path !== opts.path) {
      // Another upgrade handler may own this path; answer only when nobody else listens.
      if (http.listenerCount('upgrade') === 1) reject(socket, 404, 'route_not_found', `no WebSocket endpoint at ${path}`);
      return;
    }
    socket.on('error', () => socket.destroy());
    if (!hostAllowed(req.headers.host, opts.allowedHosts)) {
      reject(socket, 403, 'host_not_allowed', 'the Host header does not name this service');
      return;
    }
    if (!originAllowed(req.headers.origin, opts.allowedOrigins)) {
      reject(socket, 403, 'origin_not_allowed', `origin ${req.headers.origin} is not allowed`);
      return;
    }
    const token = bearer(req);
    const acting = actAsOf(req, url);
    if ('error' in acting) {
      reject(socket, 400, 'invalid_request', acting.error);
      return;
    }
    const unauthenticated = () =>
      reject(socket, 401, 'unauthenticated', 'missing or invalid API key: send Authorization: Bearer <API_KEY>', { 'WWW-Authenticate': 'Bearer' });
    opts
      .authenticate(token, req.socket.remoteAddress ?? 'unknown')
      .then((authenticated) => {
        if (!authenticated) {
          unauthenticated();
          return;
        }
        // The acting person is fixed for the connection, checked here like the HTTP transports check the header.
        if (acting.actAs !== undefined && !opts.actAsCheckedUpstream && !can(authenticated, 'act_as')) {
          reject(socket, 403, 'permission_denied', `${ACT_AS_HEADER} needs the 'act_as' permission: this credential reads only as itself`);
          return;
        }
        const principal: Principal = acting.actAs === undefined ? authenticated : { ...authenticated, actAs: acting.actAs };
        wss.handleUpgrade(req, socket, head, (ws) => {
          alive.add(ws);
          ws.on('pong', () => alive.add(ws));
          const transport = new WebSocketTransport(ws, {
            admit: async () => (await opts.authenticate(token))?.id === principal.id,
          });
          serveConnection(opts.ctx, principal, 'websocket', transport).catch((err: unknown) => {
            opts.ctx.log.warn({ err }, 'MCP WebSocket connection failed');
            ws.terminate();
          });
        });
      })
      .catch((err: unknown) => {
        if (isAppError(err) && err.status === 429) {
          reject(socket, 429, err.code, err.message, { 'Retry-After': err.headers['retry-after'] ?? '60' });
          return;
        }
        opts.ctx.log.error({ err }, 'MCP WebSocket authentication failed');
        reject(socket, 500, 'internal_error', 'internal server error');
      });
  };

  const alive = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, opts.heartbeatMs ?? 30_000);
  heartbeat.unref();

  http.on('upgrade', onUpgrade);
  return {
    async close() {
      clearInterval(heartbeat);
      http.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
