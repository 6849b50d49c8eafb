import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { type DatabaseExecutor, MIGRATIONS_DIR, migrate, openPglite, openPostgres, readMigrations } from '../../src/platform/db/index.ts';
import { createLogger } from '../../src/platform/log.ts';

export const silentLog = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const CACHE_DIR = path.resolve(import.meta.dirname, '../../.cache');

async function migrationsHash(): Promise<string> {
  const h = createHash('sha256');
  for (const m of await readMigrations(MIGRATIONS_DIR)) h.update(m.name).update(m.sql);
  return h.digest('hex').slice(0, 16);
}

/**
 * A fresh, migrated, in-memory PGlite. Creating PGlite from scratch costs ~3 s; the migrated data dir
 * is cached as a tarball under .cache/ (keyed by the migrations' hash) and loaded in ~1 s.
 */
export async function openTestPglite(): Promise<DatabaseExecutor> {
  const file = path.join(CACHE_DIR, `pglite-template-${await migrationsHash()}.tar`);
  try {
    const buf = await fs.readFile(file);
    const db = await openPglite('memory://', { loadDataDir: new Blob([buf]) });
    // Each test database is its own instance, as a fresh install is, not a copy of the template's.
    await db.query('UPDATE tenants SET federation_origin = gen_random_uuid()::text');
    return db;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const db = await openPglite('memory://');
  await migrate(db, silentLog);
  const blob = await db.dump();
  await fs.mkdir(CACHE_DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, Buffer.from(await blob.arrayBuffer()));
  await fs.rename(tmp, file);
  return db;
}

export const TEST_PG_URL = process.env.ATRIUM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh PostgreSQL database on the machine's server, migrated; dropped by the returned `drop`. */
export async function openTestPostgres(): Promise<{ db: DatabaseExecutor; url: string; drop(): Promise<void> }> {
  const name = `atrium_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), silentLog);
  await migrate(db, silentLog);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
