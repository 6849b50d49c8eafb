import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { authenticateKey } from '../access/index.ts';
import { loadConfig } from '../config/index.ts';
import { createRuntime } from '../main/runtime.ts';
import { createRemoteBackend, createServiceMcpContext, keyAdmission, parseSelfHostedConfig, serveStdio, startSelfHostedServer } from '../mcp/index.ts';
import { liveHolder } from '../platform/db/index.ts';
import { createLogger } from '../platform/log.ts';
import { savedKey } from './login.ts';

/** `atrium mcp --stdio` and `atrium mcp-server --config file.json`. */
export function registerMcpCommands(program: Command, env: NodeJS.ProcessEnv): void {
  program
    .command('mcp')
    .description('serve MCP over stdio for desktop assistants (key in ATRIUM_API_KEY)')
    .requiredOption('--stdio', 'speak MCP on stdin/stdout')
    .option('--url <base_url>', 'forward to a running Atrium service instead of opening local storage (ATRIUM_SERVICE_BASE_URL)')
    .action(async (opts: { stdio: boolean; url?: string }) => {
      // stdout carries the protocol: every log line goes to stderr.
      const log = createLogger({ level: env.LOG_LEVEL ?? 'warn', destination: process.stderr as never });
      const config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
      // A local service holding the embedded folder is used over HTTP: the folder is never opened twice.
      const held = config.storage === 'pglite' ? await liveHolder(config.dataDir) : null;
      // The subcommand's own --url, or the global one (atrium --url …, ATRIUM_URL).
      const url = opts.url ?? env.ATRIUM_URL ?? env.ATRIUM_SERVICE_BASE_URL ?? held?.url ?? undefined;
      // The key: ATRIUM_API_KEY, else the one `atrium login` saved for that service.
      const key = env.ATRIUM_API_KEY || (url ? await savedKey(env, url) : undefined);
      if (!key) throw new Error('set ATRIUM_API_KEY to an Atrium API key (or save one with `atrium login`): the MCP tools act with its permissions');
      if (url) {
        const backend = createRemoteBackend({ baseUrl: url, apiKey: key, forwardedBy: 'stdio' });
        const caller = await backend.caller();
        await serveStdio({ backend, log, now: () => Date.now() }, caller);
        return;
      }
      const rt = await createRuntime(config, log, { command: 'mcp --stdio' });
      try {
        const caller = await authenticateKey(rt.deps.db, key);
        if (!caller) throw new Error('ATRIUM_API_KEY is not a valid key for this storage (revoked, or minted for another database)');
        await serveStdio(createServiceMcpContext(rt.deps), caller, { admit: keyAdmission(rt.deps.db, key, caller, { clock: rt.deps.clock, log }) });
      } finally {
        await rt.close();
      }
    });

  program
    .command('mcp-server')
    .description('self-hosted MCP server (Streamable HTTP + WebSocket) forwarding to an Atrium service')
    .option('--config <file>', 'JSON file with port, service_api_key, service_base_url, allowed_origins, rate_limit.requests_per_minute')
    .action(async (opts: { config?: string }) => {
      const log = createLogger({ level: env.LOG_LEVEL ?? 'info' });
      const file = opts.config ? (JSON.parse(await readFile(opts.config, 'utf8')) as unknown) : {};
      const config = parseSelfHostedConfig(file, env);
      const server = await startSelfHostedServer(config, log);
      process.stderr.write(`atrium MCP server on ${server.url}/mcp (Streamable HTTP) and ${server.url.replace(/^http/, 'ws')}/v1/expose/mcp/ws\n`);
      const stop = () => {
        void server.close().then(() => log.info('MCP server stopped'));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
