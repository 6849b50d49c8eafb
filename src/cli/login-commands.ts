import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { loadConfig } from '../config/index.ts';
import { liveHolder } from '../platform/db/index.ts';
import { credentialsFile, normalizeServiceUrl, removeLogin, saveLogin } from './login.ts';
import { CliRefusal, callService, discoveredService } from './storage.ts';

const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * The service `login` talks to: --url / ATRIUM_URL, else the one holding the local data folder, else (no
 * ATRIUM_DATA_DIR) the one running on this machine, else the default port.
 */
async function loginTarget(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.ATRIUM_URL) return normalizeServiceUrl(env.ATRIUM_URL);
  const config = loadConfig(env);
  const holder = config.storage === 'pglite' ? await liveHolder(config.dataDir) : null;
  const found = !holder && !env.ATRIUM_DATA_DIR ? await discoveredService(env) : undefined;
  return normalizeServiceUrl(holder?.url ?? found?.url ?? DEFAULT_URL);
}

async function askKey(url: string): Promise<string> {
  if (!process.stdin.isTTY) {
    // Piped: the first line of stdin (`echo $KEY | atrium login`), so the key stays out of the shell history.
    const rl = createInterface({ input: process.stdin });
    for await (const line of rl) {
      rl.close();
      return line.trim();
    }
    return '';
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(`API key for ${url}: `)).trim();
  } finally {
    rl.close();
  }
}

export function registerLoginCommands(program: Command, env: NodeJS.ProcessEnv): void {
  program
    .command('login')
    .description('check an API key against a running service and keep both for later commands (in ~/.config/atrium, mode 0600)')
    .option('--api-key <key>', 'the key (else ATRIUM_API_KEY, else the first line of stdin or a prompt)')
    .action(async (opts: { apiKey?: string }) => {
      const url = await loginTarget(env);
      const key = opts.apiKey || env.ATRIUM_API_KEY || (await askKey(url));
      if (!key) throw new CliRefusal('no API key given: pass --api-key, set ATRIUM_API_KEY, or type it at the prompt', 2);
      const me = await callService({ url, key }, (atrium) => atrium.GET('/v1/me'));
      const file = await saveLogin(env, url, key, new Date());
      process.stdout.write(`logged in to ${url} as ${me.user_id} (tenant ${me.tenant_id}; ${me.permissions.join(', ')}); saved in ${file}\n`);
    });

  program
    .command('logout')
    .description('forget the saved key of a service (--url, ATRIUM_URL or the local one), or of every service with --all')
    .option('--all', 'forget every saved login')
    .action(async (opts: { all?: boolean }) => {
      const url = opts.all ? undefined : await loginTarget(env);
      const removed = await removeLogin(env, url);
      process.stdout.write(removed ? `forgot ${removed} saved login${removed > 1 ? 's' : ''} (${credentialsFile(env)})\n` : `no saved login${url ? ` for ${url}` : ''}\n`);
    });
}
