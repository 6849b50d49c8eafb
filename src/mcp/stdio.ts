import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { authenticateKey, type Principal } from '../access/index.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import type { McpContext } from './invoke.ts';
import { createMcpServer } from './server.ts';

/**
 * MCP over stdio for desktop assistants: newline-delimited JSON-RPC on stdin/stdout (so nothing else
 * may write to stdout; logs go to stderr). Resolves when the client closes stdin, or when `admit` (the caller's
 * key checked again before each tool call and resource read) answers false.
 */
export async function serveStdio(
  ctx: McpContext,
  caller: Principal,
  io: { stdin?: Readable; stdout?: Writable; admit?: () => Promise<boolean> } = {},
): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const server = createMcpServer(ctx, caller, 'stdio', { admit: io.admit });
  const transport = new StdioServerTransport(stdin, io.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    stdin.once('end', () => void server.close());
  });
  await server.connect(transport);
  await closed;
}

/**
 * `admit` for serveStdio on local storage: the key is verified again (remembered 2 s, as on every surface), so
 * a revoke through the service or the CLI ends a stdio session too.
 */
export function keyAdmission(db: DatabaseExecutor, key: string, caller: Principal, opts?: Parameters<typeof authenticateKey>[2]): () => Promise<boolean> {
  return async () => (await authenticateKey(db, key, opts))?.id === caller.id;
}
