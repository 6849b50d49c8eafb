import { Command, InvalidArgumentError } from 'commander';
import { createApiKey, ensureTenant, listApiKeys, PERMISSIONS, type Permission, revokeApiKey } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import { openDatabase } from '../main/runtime.ts';
import { serve } from '../main/serve.ts';
import { migrate } from '../platform/db/index.ts';
import { createLogger, type Logger } from '../platform/log.ts';
import { Ops } from '../platform/operations.ts';
import { VERSION } from '../platform/version.ts';
import { registerDocumentCommands } from './documents.ts';
import { registerMcpCommands } from './mcp-commands.ts';

function parsePermissions(value: string): Permission[] {
  const perms = value.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of perms) {
    if (!(PERMISSIONS as readonly string[]).includes(p)) {
      throw new InvalidArgumentError(`unknown permission '${p}' (one of ${PERMISSIONS.join(', ')})`);
    }
  }
  if (perms.length === 0) throw new InvalidArgumentError('at least one permission');
  return perms as Permission[];
}

/** Runs a CLI action against the configured storage (the server must not hold an embedded data dir open). */
async function withDb<T>(env: NodeJS.ProcessEnv, fn: (ctx: { db: Awaited<ReturnType<typeof openDatabase>>; log: Logger }) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const log = createLogger({ level: env.LOG_LEVEL ?? 'warn', destination: process.stderr as never });
  const db = await openDatabase(config, log);
  try {
    await migrate(db, log);
    return await fn({ db, log });
  } finally {
    await db.close();
  }
}

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command('atrium').version(VERSION).description('Atrium enterprise knowledge service');
  program.showHelpAfterError();

  program
    .command('serve')
    .description('start the service (embedded storage unless DATABASE_URL is set)')
    .option('--role <role>', 'all | api | worker', env.ATRIUM_ROLE ?? 'all')
    .option('--port <port>', 'port to listen on (PORT)')
    .option('--host <host>', 'address to bind (HOST)')
    .action(async (opts: { role: string; port?: string; host?: string }) => {
      const config = loadConfig({ ...env, ATRIUM_ROLE: opts.role, PORT: opts.port ?? env.PORT, HOST: opts.host ?? env.HOST });
      const log = createLogger({ level: config.logLevel });
      await serve(config, log);
    });

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .action(async () => {
      await withDb(env, async ({ db, log }) => {
        const applied = await migrate(db, log);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      });
    });

  const tenants = program.command('tenants').description('manage tenants');
  tenants
    .command('create <id>')
    .option('--name <name>', 'display name')
    .action(async (id: string, opts: { name?: string }) => {
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(id)) throw new InvalidArgumentError('tenant id: lowercase letters, digits and -');
      await withDb(env, async ({ db }) => ensureTenant(db, id, opts.name));
      process.stdout.write(`tenant ${id} ready\n`);
    });

  tenants
    .command('reset-origin <id>')
    .description("give the tenant a new federation origin id: needed once on a copy of another instance's database, which the original would otherwise take for itself")
    .action(async (id: string) => {
      const changed = await withDb(env, async ({ db }) => (await db.query("UPDATE tenants SET federation_origin = gen_random_uuid()::text WHERE id = $1", [id])).affectedRows);
      if (!changed) throw new InvalidArgumentError(`no tenant '${id}'`);
      process.stdout.write(`tenant ${id}: new federation origin id\n`);
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .option('--permissions <list>', `comma-separated: ${PERMISSIONS.join(', ')}`, parsePermissions, ['query'] as Permission[])
    .option('--tenant <id>', 'tenant the key belongs to (created if missing)', 'default')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; permissions: Permission[]; tenant: string; json?: boolean }) => {
      const created = await withDb(env, async ({ db }) => {
        await ensureTenant(db, opts.tenant);
        const k = await createApiKey(db, { tenantId: opts.tenant, name: opts.name, permissions: opts.permissions, createdBy: 'cli' });
        await recordAudit(db, { tenantId: opts.tenant, action: Ops.apiKeyCreated, actorId: 'cli', details: { key_id: k.id, name: k.name, permissions: k.permissions } });
        return k;
      });
      if (opts.json) process.stdout.write(`${JSON.stringify(created)}\n`);
      else process.stdout.write(`${created.key}\n(id ${created.id}, permissions ${created.permissions.join(',')}; shown once, store it now)\n`);
    });
  keys
    .command('list')
    .option('--tenant <id>', 'tenant', 'default')
    .option('--json', 'print JSON')
    .action(async (opts: { tenant: string; json?: boolean }) => {
      const list = await withDb(env, ({ db }) => listApiKeys(db, opts.tenant));
      if (opts.json) process.stdout.write(`${JSON.stringify(list)}\n`);
      else for (const k of list) process.stdout.write(`${k.id}\t${k.name}\t${k.permissions.join(',')}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`);
    });
  keys
    .command('revoke <id>')
    .option('--tenant <id>', 'tenant', 'default')
    .action(async (id: string, opts: { tenant: string }) => {
      const revoked = await withDb(env, async ({ db }) => {
        const r = await revokeApiKey(db, opts.tenant, id);
        if (r) await recordAudit(db, { tenantId: opts.tenant, action: Ops.apiKeyRevoked, actorId: 'cli', details: { key_id: id } });
        return r;
      });
      if (!revoked) {
        process.stderr.write(`no key ${id} in tenant ${opts.tenant}\n`);
        process.exitCode = 4;
        return;
      }
      process.stdout.write(`revoked ${id}\n`);
    });

  registerMcpCommands(program, env);
  registerDocumentCommands(program, env);

  return program;
}
