import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type LegacyHttpHandler,
  legacyStatelessFallback,
  type McpHttpHandler,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { Principal } from '../access/index.ts';
import type { McpContext } from './invoke.ts';
import { createMcpServer } from './server.ts';
import { type McpSessionStore, memorySessionStore } from './session-store.ts';

export interface McpHttpSessionsOptions {
  readonly idleMs: number;
  /** Upper bound on open sessions per credential; the least recently used one is closed beyond it. */
  readonly maxPerCaller?: number;
  /** Where 2025-era sessions live; in memory by default (one process), the database on the service. */
  readonly store?: McpSessionStore;
}

/** Writes a JSON-RPC error the way the SDK's transport does, for conditions decided before a transport exists. */
export function writeJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });
}

function ownerKeyOf(p: Principal): string {
  return JSON.stringify([p.tenantId, p.kind, p.id]);
}

function initializeOf(body: unknown): { params: { protocolVersion?: unknown } } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  return messages.find((m) => isInitializeRequest(m)) as { params: { protocolVersion?: unknown } } | undefined;
}

/** The caller rides to the server factory in the SDK's pass-through `authInfo` (never derived from headers by the SDK). */
interface CallerAuth extends AuthInfo {
  readonly extra: { readonly principal: Principal };
}

function callerOf(ctx: McpRequestContext): Principal {
  const principal = (ctx.authInfo as CallerAuth | undefined)?.extra?.principal;
  if (!principal) throw new Error('MCP request without an authenticated caller');
  return principal;
}

/**
 * Streamable HTTP on the official SDK v2, both protocol revisions on one path, no server state between requests:
 *
 * - 2026-07-28 (a request carrying the per-request `_meta` envelope and `MCP-Protocol-Version`, `Mcp-Method` /
 *   `Mcp-Name` headers, `server/discover`): the SDK's modern handler, a fresh server per request, no session.
 * - 2025 revisions (`initialize` handshake, `Mcp-Session-Id`): `initialize` opens a session recorded in the session
 *   store (the database on the service), and every later request is checked against it (owner, idle expiry) and
 *   answered by a fresh server over the SDK's stateless transport. Any process sharing the store answers any
 *   request, so API processes need no sticky routing. `GET` (a server-initiated stream) is 405: the server sends
 *   nothing unprompted (no list changes, no server→client requests); `DELETE` ends the session.
 */
export class McpHttpSessions {
  readonly #ctx: McpContext;
  readonly #opts: { idleMs: number; maxPerCaller: number };
  readonly #store: McpSessionStore;
  readonly #modern: McpHttpHandler;
  readonly #legacy: LegacyHttpHandler;
  readonly #node: NodeMcpRequestHandler;

  constructor(ctx: McpContext, opts: McpHttpSessionsOptions) {
    this.#ctx = ctx;
    this.#opts = { idleMs: opts.idleMs, maxPerCaller: opts.maxPerCaller ?? 32 };
    this.#store = opts.store ?? memorySessionStore();
    const factory = (c: McpRequestContext) => createMcpServer(ctx, callerOf(c), 'streamable_http');
    const onerror = (err: Error) => ctx.log.debug({ err }, 'MCP request refused or failed');
    this.#modern = createMcpHandler(factory, { legacy: 'reject', onerror });
    this.#legacy = legacyStatelessFallback(factory, onerror);
    // A failure here is the service's (the session store, a bug), not the client's: logged as an error, answered 500.
    this.#node = toNodeHandler(
      { fetch: (request, o) => this.#route(request, o?.authInfo as CallerAuth, o?.parsedBody) },
      { onerror: (err) => ctx.log.error({ err }, 'MCP request failed') },
    );
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Principal): Promise<void> {
    const auth: CallerAuth = { token: '', clientId: caller.id, scopes: [], extra: { principal: caller } };
    await this.#node(Object.assign(req, { auth }), res, body);
  }

  async #route(request: Request, auth: CallerAuth, body: unknown): Promise<Response> {
    if (!(await isLegacyRequest(request, body))) return this.#modern.fetch(request, { authInfo: auth, parsedBody: body });
    const caller = auth.extra.principal;
    const owner = ownerKeyOf(caller);
    const now = this.#ctx.now();
    const sessionId = request.headers.get('mcp-session-id');

    if (sessionId !== null) {
      if (!(await this.#store.touch(sessionId, owner, now, this.#opts.idleMs))) {
        return jsonRpcError(404, -32001, 'Session not found: initialize a new session');
      }
      if (request.method === 'DELETE') {
        await this.#store.delete(sessionId, owner);
        return new Response(null, { status: 200 });
      }
      if (request.method === 'GET') return notAllowed();
      return withSession(await this.#legacy(request, { authInfo: auth, parsedBody: body }), sessionId);
    }

    const init = request.method === 'POST' ? initializeOf(body) : undefined;
    if (!init) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    const answer = await this.#legacy(request, { authInfo: auth, parsedBody: body });
    if (answer.status !== 200) return answer;
    const id = randomUUID();
    const requested = init.params.protocolVersion;
    await this.#store.create(
      { id, tenantId: caller.tenantId, ownerKey: owner, protocolVersion: typeof requested === 'string' ? requested.slice(0, 40) : undefined },
      now,
      { idleMs: this.#opts.idleMs, maxPerOwner: this.#opts.maxPerCaller },
    );
    return withSession(answer, id);
  }

  /** Aborts in-flight 2026-07-28 exchanges; 2025 sessions are rows, left to expire (another process may serve them). */
  async closeAll(): Promise<void> {
    await this.#modern.close();
  }
}

function notAllowed(): Response {
  return jsonRpcError(405, -32000, 'Method not allowed: this server sends no server-initiated messages (no GET stream)', { allow: 'POST, DELETE' });
}

function withSession(answer: Response, sessionId: string): Response {
  const headers = new Headers(answer.headers);
  headers.set('mcp-session-id', sessionId);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}
