import { type JSONRPCMessage, type MessageExtraInfo, parseJSONRPCMessage, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import WebSocket from 'ws';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../platform/json-depth.ts';

/** The WebSocket subprotocol MCP clients offer. */
export const MCP_SUBPROTOCOL = 'mcp';

/**
 * MCP over one WebSocket: one JSON-RPC message per text frame, both ways. Works on either end (the
 * service wraps accepted sockets, tests and the self-hosted server wrap client sockets). The official SDK (1.x and
 * v2 alike) ships no server-side WebSocket transport; the service serves it as a connection (connection.ts) like stdio.
 */
export class WebSocketTransport implements Transport {
  readonly #ws: WebSocket;
  #started = false;
  #closed = false;
  /** Runs before each inbound message is delivered; returning false closes the socket (e.g. a revoked key). */
  readonly #admit: (() => Promise<boolean>) | undefined;
  #queue: Promise<void> = Promise.resolve();

  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  sessionId?: string;

  constructor(ws: WebSocket, opts: { admit?: () => Promise<boolean>; sessionId?: string } = {}) {
    this.#ws = ws;
    this.#admit = opts.admit;
    this.sessionId = opts.sessionId;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('WebSocketTransport already started');
    this.#started = true;
    if (this.#ws.readyState === WebSocket.CONNECTING) {
      await new Promise<void>((resolve, reject) => {
        this.#ws.once('open', () => resolve());
        this.#ws.once('error', reject);
      });
    }
    this.#ws.on('message', (data, isBinary) => {
      // Messages are handled in arrival order even when admission is asynchronous.
      this.#queue = this.#queue.then(() => this.#receive(data, isBinary)).catch((err: unknown) => this.#fail(err));
    });
    this.#ws.on('error', (err) => this.#fail(err));
    this.#ws.on('close', () => this.#finish());
  }

  async #receive(data: WebSocket.RawData, isBinary: boolean): Promise<void> {
    if (this.#closed) return;
    if (isBinary) {
      this.#ws.close(1003, 'MCP messages are text frames');
      return;
    }
    if (this.#admit && !(await this.#admit())) {
      this.#ws.close(1008, 'credential no longer valid');
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      this.#sendRaw({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: the message nests more than ${MAX_JSON_DEPTH} levels deep` } });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#sendRaw({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: frame is not JSON' } });
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(json);
    } catch {
      const id = typeof json === 'object' && json && 'id' in json && (typeof json.id === 'string' || typeof json.id === 'number') ? json.id : null;
      this.#sendRaw({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } });
      return;
    }
    this.onmessage?.(message);
  }

  #sendRaw(value: unknown): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(value));
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.#ws.readyState !== WebSocket.OPEN) throw new Error('WebSocket is not open');
    await new Promise<void>((resolve, reject) => this.#ws.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.OPEN || this.#ws.readyState === WebSocket.CONNECTING) this.#ws.close(1000);
    this.#finish();
  }

  #fail(err: unknown): void {
    this.onerror?.(err instanceof Error ? err : new Error(String(err)));
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
