import fs from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { DatabaseExecutor, Queryable } from './executor.ts';

/** Opens (or creates) an embedded PGlite database with pgvector in `dataDir`; `memory://` for tests. */
export interface PgliteExecutor extends DatabaseExecutor {
  /** A tarball of the data dir, loadable with `openPglite(path, { loadDataDir })` (test templates). */
  dump(): Promise<Blob | File>;
}

export async function openPglite(dataDir: string, opts: { loadDataDir?: Blob | File } = {}): Promise<PgliteExecutor> {
  if (!dataDir.startsWith('memory://')) await fs.mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir, { extensions: { vector }, loadDataDir: opts.loadDataDir });
  await pg.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const res = await q.query<R>(sql, params as unknown[]);
      return { rows: res.rows, affectedRows: res.affectedRows ?? 0 };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const base = wrap(pg);
  let closed = false;
  return {
    kind: 'pglite',
    hasVector: true,
    query: base.query,
    exec: base.exec,
    async transaction(fn) {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    async close() {
      if (closed) return;
      closed = true;
      await pg.close();
    },
    async dump() {
      return pg.dumpDataDir('none');
    },
  };
}
