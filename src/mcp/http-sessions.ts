import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../access/index.ts';
import type { McpContext } from './invoke.ts';
import { createMcpServer } from './server.ts';

interface Session {
  readonly id: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  /** The credential that opened the session: only it may use the session. */
  readonly ownerKey: string;
  lastSeen: number;
}

export interface McpHttpSessionsOptions {
  readonly idleMs: number;
  /** Upper bound on open sessions per credential; the least recently used one is closed beyond it. */
  readonly maxPerCaller?: number;
}

/** Writes a JSON-RPC error the way the SDK's transport does, for conditions decided before a transport exists. */
export function writeJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function ownerKeyOf(p: Principal): string {
  return `${p.tenantId}\u0000${p.kind}\u0000${p.id}`;
}

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/**
 * Streamable HTTP sessions (`Mcp-Session-Id`), each an SDK transport plus a server bound to the
 * credential that initialized it. A session presented by another credential is "not found".
 */
export class McpHttpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #ctx: McpContext;
  readonly #opts: Required<McpHttpSessionsOptions>;

  constructor(ctx: McpContext, opts: McpHttpSessionsOptions) {
    this.#ctx = ctx;
    this.#opts = { maxPerCaller: 32, ...opts };
  }

  get size(): number {
    return this.#sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Principal): Promise<void> {
    const now = this.#ctx.now();
    this.#expireIdle(now);
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;

    if (sessionId !== undefined) {
      const s = this.#sessions.get(sessionId);
      if (!s || s.ownerKey !== ownerKeyOf(caller)) {
        writeJsonRpcError(res, 404, -32001, 'Session not found: initialize a new session');
        return;
      }
      s.lastSeen = now;
      await s.transport.handleRequest(req, res, body);
      return;
    }

    if (req.method !== 'POST' || !containsInitialize(body)) {
      writeJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
      return;
    }

    this.#enforcePerCallerLimit(caller);
    const server = createMcpServer(this.#ctx, caller, 'streamable_http');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { id, transport, server, ownerKey: ownerKeyOf(caller), lastSeen: this.#ctx.now() });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await server.close().catch(() => undefined);
  }

  #expireIdle(now: number): void {
    for (const s of this.#sessions.values()) {
      if (now - s.lastSeen > this.#opts.idleMs) this.#drop(s);
    }
  }

  #enforcePerCallerLimit(caller: Principal): void {
    const key = ownerKeyOf(caller);
    const mine = [...this.#sessions.values()].filter((s) => s.ownerKey === key).sort((a, b) => a.lastSeen - b.lastSeen);
    while (mine.length >= this.#opts.maxPerCaller) {
      const oldest = mine.shift();
      if (oldest) this.#drop(oldest);
    }
  }

  #drop(s: Session): void {
    this.#sessions.delete(s.id);
    void s.server.close().catch((err: unknown) => this.#ctx.log.warn({ err }, 'closing an MCP session failed'));
  }

  /** Ends every session (and its open SSE streams) so the HTTP server can close. */
  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((s) => s.server.close()));
  }
}
