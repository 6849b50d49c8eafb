import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { VERSION } from '../version.ts';
import type { DatabaseExecutor } from './executor.ts';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

/** A migration whose first line is this marker runs only where pgvector is enabled (and later, once it is). */
const REQUIRES_VECTOR = '-- atrium:requires vector';
const LOCK_KEY = 4_242_001;
/** PostgreSQL's SQLSTATE for a relation that does not exist. */
const UNDEFINED_TABLE = '42P01';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  readonly requiresVector: boolean;
}

/** The migration files of `dir` in order, by name only (no file is read). */
export async function listMigrations(dir = MIGRATIONS_DIR): Promise<{ version: number; name: string; file: string }[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{3,}_[a-z0-9_.-]+\.sql$/.test(f)).sort();
  const out = files.map((file) => ({ version: Number(file.slice(0, file.indexOf('_'))), name: file.replace(/\.sql$/, ''), file: path.join(dir, file) }));
  const seen = new Set<string>();
  for (const m of out) {
    if (seen.has(m.name)) throw new Error(`duplicate migration ${m.name}`);
    seen.add(m.name);
  }
  return out;
}

async function readMigration(m: { version: number; name: string; file: string }): Promise<Migration> {
  const sql = await fs.readFile(m.file, 'utf8');
  return { version: m.version, name: m.name, sql, requiresVector: sql.trimStart().startsWith(REQUIRES_VECTOR) };
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  return Promise.all((await listMigrations(dir)).map(readMigration));
}

/** The database was migrated by a newer Atrium: running older code on it could misread or damage it. */
export class NewerDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NewerDatabaseError';
  }
}

function refuseNewer(applied: ReadonlySet<string>, known: readonly { version: number; name: string }[]): void {
  const names = new Set(known.map((m) => m.name));
  const latestKnown = known.reduce((a, m) => Math.max(a, m.version), 0);
  const unknown = [...applied].filter((n) => !names.has(n) && Number(n.slice(0, n.indexOf('_'))) > latestKnown).sort();
  if (unknown.length === 0) return;
  const newest = unknown[unknown.length - 1];
  throw new NewerDatabaseError(
    `the database was written by a newer Atrium: it has migration ${newest} (${unknown.length} unknown here), ` +
      `this Atrium ${VERSION} knows migrations up to ${String(latestKnown).padStart(3, '0')}. ` +
      'Run the newer Atrium version on it, or restore a backup made by this version.',
  );
}

/** The names of the applied migrations, or null when the database has no schema_migrations table yet. */
async function appliedMigrations(db: DatabaseExecutor): Promise<Set<string> | null> {
  try {
    return new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw err;
  }
}

/**
 * Applies pending migrations in file order, each in its own transaction under an advisory lock,
 * so several processes starting at once against one PostgreSQL apply each migration exactly once.
 * With nothing pending, a start costs one query and one directory listing (issue 29): a file is read
 * only when its migration is pending.
 */
export async function migrate(db: DatabaseExecutor, log: Logger, dir = MIGRATIONS_DIR): Promise<string[]> {
  let done = await appliedMigrations(db);
  if (!done) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    });
    done = (await appliedMigrations(db)) ?? new Set();
  }
  const known = await listMigrations(dir);
  refuseNewer(done, known);
  const applied: string[] = [];
  for (const entry of known) {
    if (done.has(entry.name)) continue;
    const m = await readMigration(entry);
    if (m.requiresVector && !db.hasVector) continue;
    // Re-checked under the lock: another process may have applied it since the read above.
    const didApply = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [m.name]);
      if (done.rows.length > 0) return false;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
      return true;
    });
    if (didApply) {
      applied.push(m.name);
      log.info({ migration: m.name }, 'migration applied');
    }
  }
  return applied;
}
