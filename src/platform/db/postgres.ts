import type pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseExecutor, Queryable } from './executor.ts';

/** Connects to PostgreSQL at `url`; enables pgvector when the server has it, else warns and degrades. */
export async function openPostgres(url: string, log: Logger, opts: { max?: number } = {}): Promise<DatabaseExecutor> {
  // Loaded here, not at start: embedded storage never needs the driver (issue 29, ~40 ms of every start).
  const { default: driver } = await import('pg');
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      // int8 as a JS number, as PGlite returns it: counts and ids stay well below 2^53.
      if (oid === 20) return (v: string) => Number(v);
      return driver.types.getTypeParser(oid, format);
    },
  };
  const pool = new driver.Pool({ connectionString: url, max: opts.max ?? 10, types });
  pool.on('error', (err) => log.error({ err }, 'idle postgres client failed'));
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const res = await q.query(sql, params as unknown[]);
      return { rows: res.rows as R[], affectedRows: res.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  let hasVector = false;
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
    hasVector = true;
  } catch (err) {
    const available = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    log.warn(
      { err: (err as Error).message, installed: available.rowCount !== 0 },
      'pgvector is not available on this PostgreSQL server: lexical retrieval serves and vector scores are computed in the app',
    );
  }
  const base = wrap(pool);
  let closed = false;
  return {
    kind: 'postgres',
    hasVector,
    query: base.query,
    exec: base.exec,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
