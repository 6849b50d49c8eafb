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

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  readonly requiresVector: boolean;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{3,}_[a-z0-9_.-]+\.sql$/.test(f)).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const sql = await fs.readFile(path.join(dir, file), 'utf8');
    out.push({
      version: Number(file.slice(0, file.indexOf('_'))),
      name: file.replace(/\.sql$/, ''),
      sql,
      requiresVector: sql.trimStart().startsWith(REQUIRES_VECTOR),
    });
  }
  const seen = new Set<string>();
  for (const m of out) {
    if (seen.has(m.name)) throw new Error(`duplicate migration ${m.name}`);
    seen.add(m.name);
  }
  return out;
}

/** The database was migrated by a newer Atrium: running older code on it could misread or damage it. */
export class NewerDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NewerDatabaseError';
  }
}

function refuseNewer(applied: ReadonlySet<string>, known: readonly Migration[]): void {
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

/**
 * Applies pending migrations in file order, each in its own transaction under an advisory lock,
 * so several processes starting at once against one PostgreSQL apply each migration exactly once.
 */
export async function migrate(db: DatabaseExecutor, log: Logger, dir = MIGRATIONS_DIR): Promise<string[]> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const known = await readMigrations(dir);
  const applied: string[] = [];
  // One read of what is applied, so a start with nothing pending costs one query, not one per migration;
  // each pending migration is still re-checked under the lock before it runs.
  const done = new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
  refuseNewer(done, known);
  for (const m of known) {
    if (m.requiresVector && !db.hasVector) continue;
    if (done.has(m.name)) continue;
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
