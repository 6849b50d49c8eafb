import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { authenticateKey, type Principal } from '../access/index.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { serveConnection } from './connection.ts';
import type { McpContext } from './invoke.ts';

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
  const transport = new StdioServerTransport(io.stdin ?? process.stdin, io.stdout ?? process.stdout);
  await serveConnection(ctx, caller, 'stdio', transport, { admit: io.admit });
}

/**
 * `admit` for serveStdio on local storage: the key is verified again (remembered 2 s, as on every surface), so
 * a revoke through the service or the CLI ends a stdio session too.
 */
export function keyAdmission(db: DatabaseExecutor, key: string, caller: Principal, opts?: Parameters<typeof authenticateKey>[2]): () => Promise<boolean> {
  return async () => (await authenticateKey(db, key, opts))?.id === caller.id;
}
