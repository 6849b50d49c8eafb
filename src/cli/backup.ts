import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config/index.ts';
import { acquireDataLock, LOCK_FILE, liveHolder, describeHolder, migrate, openPglite, recordBackup, BACKUPS_FILE } from '../platform/db/index.ts';
import { VERSION } from '../platform/version.ts';
import { CliRefusal, callService, cliLogger, storageFor, withStorage } from './storage.ts';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

const PG_DUMP_HINT = 'with PostgreSQL storage (DATABASE_URL), back up with pg_dump and restore with pg_restore (see docs/deployment.md, "Backups")';

/** Whether bytes are a tar archive (POSIX `ustar` magic at offset 257). */
const isTar = (b: Uint8Array) => Buffer.from(b.subarray(257, 262)).toString('latin1') === 'ustar';

async function writeFileAtomically(file: string, data: Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.part`;
  await fs.writeFile(tmp, data, { mode: 0o600 });
  await fs.rename(tmp, file);
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** `atrium backup <file>` and `atrium restore <file>` for embedded storage. */
export function registerBackupCommands(program: Command, env: NodeJS.ProcessEnv): void {
  program
    .command('backup <file>')
    .description('save the embedded data folder to a file (.tar.gz), online: through the running service (admin key) or under the folder lock')
    .option('--api-key <key>', "an admin key of tenant 'default', to back up through the running service (ATRIUM_API_KEY)")
    .action(async (file: string, opts: { apiKey?: string }) => {
      if (loadConfig(env).storage === 'postgres') throw new InvalidArgumentError(`atrium backup is for embedded storage: ${PG_DUMP_HINT}`);
      const out = path.resolve(file);
      await fs.access(path.dirname(out)).catch(() => {
        throw new InvalidArgumentError(`${file}: no folder ${path.dirname(out)} to write it in`);
      });
      const target = await storageFor(env, { command: 'backup', mustExist: true, forward: { permission: 'admin', apiKey: opts.apiKey ?? env.ATRIUM_API_KEY } });
      let tar: Uint8Array;
      if (target.service) {
        tar = new Uint8Array(await callService(target.service, (atrium) => atrium.GET('/v1/admin/backup', { parseAs: 'arrayBuffer' })));
      } else {
        tar = await withStorage(target, env, 'backup', async ({ db }) => {
          if (!db.dump) throw new InvalidArgumentError(PG_DUMP_HINT);
          return new Uint8Array(await (await db.dump()).arrayBuffer());
        });
      }
      if (!isTar(tar)) throw new Error('the backup taken is not a tar archive: nothing written');
      const packed = await gzip(tar);
      await writeFileAtomically(out, packed);
      await recordBackup(target.config.dataDir, { file: out, at: new Date().toISOString(), bytes: packed.length });
      process.stdout.write(`backup of ${target.config.dataDir} written to ${out} (${mb(packed.length)}); restore it with: atrium restore ${out}\n`);
    });

  program
    .command('restore <file>')
    .description('replace the embedded data folder with a backup made by atrium backup (the service must be stopped; the current folder is kept beside it)')
    .action(async (file: string) => {
      const config = loadConfig(env);
      if (config.storage === 'postgres') throw new InvalidArgumentError(`atrium restore is for embedded storage: ${PG_DUMP_HINT}`);
      const dir = config.dataDir;
      const holder = await liveHolder(dir);
      if (holder) throw new CliRefusal(`\`atrium restore\` did nothing: the data folder ${dir} is in use by ${describeHolder(holder)}. A restore replaces the whole folder: stop the service first`, 3);
      const src = path.resolve(file);
      const raw = await fs.readFile(src).catch(() => {
        throw new InvalidArgumentError(`${file}: no such file`);
      });
      const tar = raw[0] === 0x1f && raw[1] === 0x8b ? await gunzip(raw).catch(() => Buffer.alloc(0)) : raw;
      if (!isTar(tar)) throw new InvalidArgumentError(`${file}: not a backup made by atrium backup (expected a .tar.gz or .tar of a data folder)`);
      process.stderr.write(`atrium: restoring ${src} into ${dir}\n`);
      const lock = await acquireDataLock(dir, { command: 'restore', version: VERSION });
      const staging = `${dir}.restoring-${process.pid}`;
      let swapping = false;
      try {
        await fs.rm(staging, { recursive: true, force: true });
        // Loaded and migrated beside the folder first: a backup that does not open, or that a newer Atrium
        // wrote, leaves the current folder untouched.
        const db = await openPglite(staging, { loadDataDir: new Blob([tar]), command: 'restore' });
        let documents: number;
        try {
          await migrate(db, cliLogger(env));
          documents = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents')).rows[0]?.n ?? 0;
        } finally {
          await db.close();
        }
        // The backup carries the lock of the process that made it.
        await fs.rm(path.join(staging, LOCK_FILE), { force: true });
        await fs.rm(path.join(staging, 'postmaster.pid'), { force: true });
        // The generated secret key comes back with the data (connector credentials stay readable), private again.
        await fs.chmod(path.join(staging, 'secret.key'), 0o600).catch(() => undefined);
        swapping = true;
        const entries = (await fs.readdir(dir)).filter((e) => e !== LOCK_FILE);
        let aside: string | undefined;
        if (entries.length > 0) {
          aside = `${dir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
          await fs.rename(dir, aside);
          await fs.rm(path.join(aside, LOCK_FILE), { force: true });
          // The record of backups made of this folder stays with it.
          await fs.copyFile(path.join(aside, BACKUPS_FILE), path.join(staging, BACKUPS_FILE)).catch(() => undefined);
        } else {
          await fs.rm(dir, { recursive: true, force: true });
        }
        await fs.rename(staging, dir).catch((err: unknown) => {
          throw new Error(`could not move the restored folder ${staging} to ${dir} (${(err as Error).message}); the restored data is in ${staging}${aside ? `, the previous folder in ${aside}` : ''}`);
        });
        process.stdout.write(
          `restored ${src} into ${dir} (${documents} documents)${aside ? `; the previous folder is kept at ${aside} (delete it once the restore is confirmed)` : ''}\n`,
        );
      } catch (err) {
        if (!swapping) await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
        throw err;
      } finally {
        await lock.release();
      }
    });
}
