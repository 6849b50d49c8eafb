import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Principal } from '../access/index.ts';
import type { McpContext } from './invoke.ts';
import { createMcpServer } from './server.ts';

/**
 * MCP over stdio for desktop assistants: newline-delimited JSON-RPC on stdin/stdout (so nothing else
 * may write to stdout; logs go to stderr). Resolves when the client closes stdin.
 */
export async function serveStdio(ctx: McpContext, caller: Principal, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const server = createMcpServer(ctx, caller, 'stdio');
  const transport = new StdioServerTransport(stdin, io.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    stdin.once('end', () => void server.close());
  });
  await server.connect(transport);
  await closed;
}
