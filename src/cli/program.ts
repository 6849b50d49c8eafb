import { Command, InvalidArgumentError } from 'commander';
import { createApiKey, ensureTenant, listApiKeys, PERMISSIONS, type Permission, revokeApiKey } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import { resetFederationOrigin } from '../federation/index.ts';
import { serve } from '../main/serve.ts';
import { migrate } from '../platform/db/index.ts';
import { createLogger } from '../platform/log.ts';
import { Ops } from '../platform/operations.ts';
import { VERSION } from '../platform/version.ts';
import { registerBackupCommands } from './backup.ts';
import { registerDocumentCommands } from './documents.ts';
import { registerLoginCommands } from './login-commands.ts';
import { registerMcpCommands } from './mcp-commands.ts';
import { callService, type Service, ServiceError, storageFor, withStorage } from './storage.ts';

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

/** Over HTTP a key acts in its own tenant: refuse a --tenant that names another one. */
async function sameTenant(service: Service, tenant: string): Promise<void> {
  const me = await callService(service, (atrium) => atrium.GET('/v1/me'));
  if (me.tenant_id !== tenant) throw new InvalidArgumentError(`--tenant ${tenant}: the API key belongs to tenant '${me.tenant_id}', and through the service a key acts only in its own tenant`);
}

// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command('atrium').version(VERSION).description('Atrium enterprise knowledge service');
  program.showHelpAfterError();
  program.option('--url <url>', 'a running service to send commands with an HTTP API to (ATRIUM_URL); its key from --api-key, ATRIUM_API_KEY or `atrium login`');
  program.hook('preAction', () => {
    const url = program.opts<{ url?: string }>().url;
    if (url) env.ATRIUM_URL = url;
  });
  registerLoginCommands(program, env);

  program
    .command('serve')
    .description('start the service (embedded storage unless DATABASE_URL is set)')
    .option('--role <role>', 'all | api | worker', env.ATRIUM_ROLE ?? 'all')
    .option('--port <port>', 'port to listen on (PORT)')
    .option('--host <host>', 'address to bind (HOST)')
    .action(async (opts: { role: string; port?: string; host?: string }) => {
      const config = loadConfig({ ...env, ATRIUM_ROLE: opts.role, PORT: opts.port ?? env.PORT, HOST: opts.host ?? env.HOST });
      const log = createLogger({ level: config.logLevel, format: config.logFormat });
      await serve(config, log);
    });

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .action(async () => {
      const target = await storageFor(env, { command: 'migrate', whyNot: 'the service applied the migrations it knows when it started' });
      await withStorage(target, env, 'migrate', async ({ db, log }) => {
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
      const target = await storageFor(env, { command: 'tenants create', whyNot: 'tenants have no HTTP API' });
      await withStorage(target, env, 'tenants create', async ({ db }) => ensureTenant(db, id, opts.name));
      process.stdout.write(`tenant ${id} ready\n`);
    });

  tenants
    .command('reset-origin <id>')
    .description("give the tenant a new federation origin id: needed once on a copy of another instance's database, which the original would otherwise take for itself")
    .action(async (id: string) => {
      const target = await storageFor(env, { command: 'tenants reset-origin', mustExist: true, whyNot: 'a running service would keep answering with the old origin id' });
      const changed = await withStorage(target, env, 'tenants reset-origin', async ({ db }) => resetFederationOrigin(db, id));
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
    .option('--api-key <key>', 'an admin key, to create it through the running service (ATRIUM_API_KEY)')
    .action(async (opts: { name: string; permissions: Permission[]; tenant: string; json?: boolean; apiKey?: string }) => {
      const target = await storageFor(env, { command: 'keys create', forward: { permission: 'admin', apiKey: opts.apiKey ?? env.ATRIUM_API_KEY } });
      const created = target.service
        ? await (async (service) => {
            await sameTenant(service, opts.tenant);
            return callService(service, (atrium) => atrium.POST('/v1/api-keys', { body: { name: opts.name, permissions: opts.permissions } }));
          })(target.service)
        : await withStorage(target, env, 'keys create', async ({ db }) => {
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
    .option('--api-key <key>', 'an admin key, to list through the running service (ATRIUM_API_KEY)')
    .action(async (opts: { tenant: string; json?: boolean; apiKey?: string }) => {
      const target = await storageFor(env, { command: 'keys list', mustExist: true, forward: { permission: 'admin', apiKey: opts.apiKey ?? env.ATRIUM_API_KEY } });
      const list = target.service
        ? await (async (service) => {
            await sameTenant(service, opts.tenant);
            return (await callService(service, (atrium) => atrium.GET('/v1/api-keys'))).api_keys;
          })(target.service)
        : await withStorage(target, env, 'keys list', ({ db }) => listApiKeys(db, opts.tenant));
      if (opts.json) process.stdout.write(`${JSON.stringify(list)}\n`);
      else for (const k of list) process.stdout.write(`${k.id}\t${k.name}\t${k.permissions.join(',')}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`);
    });
  keys
    .command('revoke <id>')
    .option('--tenant <id>', 'tenant', 'default')
    .option('--api-key <key>', 'an admin key, to revoke through the running service (ATRIUM_API_KEY)')
    .action(async (id: string, opts: { tenant: string; apiKey?: string }) => {
      const target = await storageFor(env, { command: 'keys revoke', mustExist: true, forward: { permission: 'admin', apiKey: opts.apiKey ?? env.ATRIUM_API_KEY } });
      const revoked = target.service
        ? await (async (service) => {
            await sameTenant(service, opts.tenant);
            return callService(service, (atrium) => atrium.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })).catch((err: unknown) => {
              if (err instanceof ServiceError && err.status === 404) return null;
              throw err;
            });
          })(target.service)
        : await withStorage(target, env, 'keys revoke', async ({ db }) => {
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
  registerBackupCommands(program, env);

  return program;
}
