import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { VERSION } from '../version.ts';
import { acquireDataLock, type DataLock } from './data-lock.ts';
import { hasDatabase, unopenable } from './data-dir.ts';
import { type DatabaseExecutor, isReadOnlyStatement, type Queryable } from './executor.ts';

/** Distinct statements kept prepared per database; past it, all are deallocated and prepared again. */
const MAX_PREPARED = 256;

/**
 * Server settings added to PGlite's own start parameters (issue 29). PGlite already runs with fsync off
 * (`-F`), so a torn page after a power loss is not something full-page images could save: they only
 * multiplied the WAL (every first change of a page after a checkpoint logs the whole 8 KB page; HNSW
 * and impact-list updates touch many pages). And PGlite runs single-user: a checkpoint happens only
 * when the WAL reaches max_wal_size (1 GB by default), so a data folder carried up to 1 GB of pg_wal
 * (416 MB of a 649 MB folder at 20k documents). A small cap keeps the folder to its data.
 */
export const PGLITE_SETTINGS: readonly string[] = ['full_page_writes=off', 'max_wal_size=64MB', 'min_wal_size=32MB'];

/** The PostgreSQL text form of a parameter value (arrays as array literals). */
function textForm(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (ArrayBuffer.isView(v) || Array.isArray(v)) {
    const items = Array.from(v as ArrayLike<unknown>, (x) => (x === null || x === undefined ? 'NULL' : `"${textForm(x).replace(/[\\"]/g, '\\$&')}"`));
    return `{${items.join(',')}}`;
  }
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}

/** A parameter value as a quoted SQL literal of unknown type (NULL for null). */
export function sqlLiteral(v: unknown): string {
  return v === null || v === undefined ? 'NULL' : `'${textForm(v).replace(/'/g, "''")}'`;
}

export interface PgliteExecutor extends DatabaseExecutor {
  /** A tarball of the data dir, loadable with `openPglite(path, { loadDataDir })` (test templates, backups). */
  dump(): Promise<Blob | File>;
}

/** Starts PGlite with pgvector in `dataDir`; on failure the lock is released (and an existing folder explained). */
async function startPglite(dataDir: string, lock: DataLock | undefined, loadDataDir: Blob | File | undefined): Promise<PGlite> {
  let pg: PGlite;
  try {
    const existed = lock !== undefined && !loadDataDir && (await hasDatabase(dataDir));
    try {
      const startParams = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((x) => ['-c', x])];
      pg = await PGlite.create(dataDir, { extensions: { vector }, loadDataDir, startParams });
    } catch (err) {
      throw existed ? await unopenable(dataDir, err) : err;
    }
    await pg.exec('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (err) {
    await lock?.release();
    throw err;
  }
  return pg;
}

/**
 * The Queryable over the PGlite session or one of its transactions: writes counted in one epoch (see
 * writeEpoch), prepared statements shared.
 */
function pgliteSession(): { wrap: (q: Pick<PGlite, 'query' | 'exec'>) => Queryable; epoch: () => number } {
  // Prepared statements belong to the one PGlite session, so transactions share them.
  const prepared = new Map<string, Promise<void>>();
  // This process is the database's only client: every write goes through here (see writeEpoch).
  let epoch = 0;
  // Bumped before a write is sent and again when it is done, so a read that overlapped it is never
  // taken as current. PGlite runs statements one at a time in the order they were sent.
  const noteWrite = (sql: string): boolean => {
    const writes = !isReadOnlyStatement(sql);
    if (writes) epoch++;
    return writes;
  };
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const writes = noteWrite(sql);
      try {
        const res = await q.query<R>(sql, params as unknown[]);
        return { rows: res.rows, affectedRows: res.affectedRows ?? 0 };
      } finally {
        if (writes) epoch++;
      }
    },
    async exec(sql: string) {
      const writes = noteWrite(sql);
      try {
        await q.exec(sql);
      } finally {
        if (writes) epoch++;
      }
    },
    async queryPrepared<R>(sql: string, params: readonly unknown[] = []) {
      // Only read statements go through here (retrieval); a write is counted like query().
      if (noteWrite(sql)) epoch++;
      const name = `atrium_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      // Concurrent first uses of one statement share its PREPARE (a second PREPARE of the name is an error).
      let ready = prepared.get(name);
      if (!ready) {
        if (prepared.size >= MAX_PREPARED) {
          // Sent before any PREPARE that follows (PGlite runs statements in the order they are sent).
          prepared.clear();
          await q.exec('DEALLOCATE ALL');
        }
        ready = q.exec(`PREPARE ${name} AS ${sql}`).then(() => undefined);
        prepared.set(name, ready);
        ready.catch(() => prepared.delete(name));
      }
      await ready;
      // PGlite binds no parameters to a utility statement: the arguments go in as quoted literals,
      // each coerced to the type PREPARE inferred for it.
      const args = params.map(sqlLiteral).join(', ');
      const res = await q.query<R>(params.length ? `EXECUTE ${name}(${args})` : `EXECUTE ${name}`);
      return { rows: res.rows, affectedRows: res.affectedRows ?? 0 };
    },
  });
  return { wrap, epoch: () => epoch };
}

/**
 * Opens (or creates) an embedded PGlite database with pgvector in `dataDir`; `memory://` for tests.
 * A folder is opened only under its lock (`data-lock.ts`): a folder another live process holds is
 * refused with DataDirLockedError, and one PGlite cannot open gets DataDirUnopenableError saying why
 * and how to restore it, never a bare `Aborted()`. `command` names this process in the lock.
 */
export async function openPglite(dataDir: string, opts: { loadDataDir?: Blob | File; command?: string } = {}): Promise<PgliteExecutor> {
  let lock: DataLock | undefined;
  if (!dataDir.startsWith('memory://')) {
    lock = await acquireDataLock(dataDir, { command: opts.command ?? 'open', version: VERSION });
  }
  const pg = await startPglite(dataDir, lock, opts.loadDataDir);
  const { wrap, epoch } = pgliteSession();
  const base = wrap(pg);
  let closed = false;
  const closing: (() => Promise<void>)[] = [];
  const runClosing = async () => {
    for (const fn of closing) await fn();
  };
  return {
    kind: 'pglite',
    hasVector: true,
    ...(lock ? { dataDir } : {}),
    onFlush: (fn) => {
      closing.push(fn);
    },
    query: base.query,
    exec: base.exec,
    queryPrepared: base.queryPrepared,
    async transaction(fn) {
      // Writes inside count as they are sent; a read sent meanwhile waits for the commit or rollback.
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    writeEpoch: epoch,
    async announceUrl(url: string) {
      await lock?.setUrl(url);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await runClosing().catch(() => undefined);
        await pg.close();
      } finally {
        await lock?.release();
      }
    },
    async dump() {
      // A checkpoint first, so a restore replays little WAL; the dump itself waits for running statements.
      await pg.exec('CHECKPOINT');
      // Derived files in the folder (the vector indexes) are brought up to date first, so a restore starts warm.
      await runClosing();
      return pg.dumpDataDir('none');
    },
  };
}
