import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Principal } from '../access/index.ts';
import type { McpContext, McpTransportName } from './invoke.ts';
import { createMcpServer } from './server.ts';

/** The wire with its close observed: `closed` runs once, whoever closes it (the client, the server, an error). */
function observeClose(wire: Transport, closed: () => void): Transport {
  let onclose: (() => void) | undefined;
  wire.onclose = () => {
    onclose?.();
    closed();
  };
  return {
    start: () => wire.start(),
    send: (message, options) => wire.send(message, options),
    close: () => wire.close(),
    get sessionId() {
      return wire.sessionId;
    },
    get onclose() {
      return onclose;
    },
    set onclose(handler: (() => void) | undefined) {
      onclose = handler;
    },
    get onerror() {
      return wire.onerror;
    },
    set onerror(handler: ((error: Error) => void) | undefined) {
      wire.onerror = handler;
    },
    get onmessage() {
      return wire.onmessage;
    },
    set onmessage(handler: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined) {
      wire.onmessage = handler;
    },
  };
}

/**
 * Serves one long-lived MCP connection (stdio, a WebSocket) with the SDK's connection entry: the opening message
 * decides the protocol era (a 2025 `initialize` handshake, or a 2026-07-28 request with its `_meta` envelope, probed by
 * `server/discover`) and one server bound to the caller serves the rest. Resolves when the connection closes.
 */
export async function serveConnection(
  ctx: McpContext,
  caller: Principal,
  transport: Exclude<McpTransportName, 'rest' | 'streamable_http'>,
  wire: Transport,
  opts: { admit?: () => Promise<boolean> } = {},
): Promise<void> {
  let resolve: () => void = () => undefined;
  const closed = new Promise<void>((r) => {
    resolve = r;
  });
  serveStdio(() => createMcpServer(ctx, caller, transport, { admit: opts.admit }), {
    transport: observeClose(wire, () => resolve()),
    onerror: (err) => ctx.log.debug({ err, transport }, 'MCP connection error'),
  });
  await closed;
}
