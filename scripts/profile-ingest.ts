// `node --import tsx scripts/profile-ingest.ts <docs> [hnswMin]`: ingests the peers corpus (bench/peers/corpus.ts)
// into an embedded PGlite folder in-process through upsertDocuments, in batches of 1,000, and prints where
// the time goes (SQL time per statement kind, per tenth of the corpus) and where the bytes go (relation and
// index sizes, WAL). Used for issue 29's profile; not a benchmark (no report section).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadCorpus } from '../bench/peers/corpus.ts';
import { diskBytes } from '../bench/peers/corpus.ts';
import { loadConfig } from '../src/config/index.ts';
import { upsertDocuments } from '../src/documents/index.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { type DatabaseExecutor, migrate, openPglite, type Queryable } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';

const N = Number(process.argv[2] ?? 20_000);
const HNSW_MIN = process.argv[3] ? Number(process.argv[3]) : undefined;
const log = createLogger({ level: 'warn' });
const registry = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
const { docs } = await loadCorpus(N);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-ingest-'));
const raw = await openPglite(dir);
await migrate(raw, log);
await raw.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-p', 'default', 'api', 'p')`);

const times = new Map<string, number>();
const key = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
const timed = (q: Queryable): Queryable => ({
  ...q,
  query: async (sql: string, params?: unknown[]) => {
    const s = performance.now();
    try {
      return await q.query(sql, params as never);
    } finally {
      times.set(key(sql), (times.get(key(sql)) ?? 0) + performance.now() - s);
    }
  },
  exec: async (sql: string) => {
    const s = performance.now();
    try {
      return await q.exec(sql);
    } finally {
      times.set(key(sql), (times.get(key(sql)) ?? 0) + performance.now() - s);
    }
  },
}) as Queryable;
const db = Object.assign(Object.create(raw), timed(raw), {
  transaction: (f: (tx: Queryable) => Promise<unknown>) => raw.transaction((tx) => f(timed(tx))),
}) as DatabaseExecutor;

const deps = { db, log, embeddings: registry, ...(HNSW_MIN !== undefined ? { hnswMinVectors: HNSW_MIN } : {}) };
const t0 = performance.now();
let tenth = performance.now();
for (let i = 0; i < N; i += 1000) {
  const s = performance.now();
  await upsertDocuments(deps, { tenantId: 'default', connectorId: 'api-p', documents: docs.slice(i, i + 1000).map((d) => ({ external_id: d.id, title: d.title, content: d.content })) });
  const batchS = (performance.now() - s) / 1000;
  if ((i / 1000) % Math.max(1, Math.floor(N / 10000)) === 0) console.log(`batch at ${i}: ${(1000 / batchS).toFixed(0)} docs/s`);
  if ((i + 1000) % Math.max(1000, N / 5) === 0) {
    const top = [...times.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`-- up to ${i + 1000}: ${((performance.now() - tenth) / 1000).toFixed(1)} s; SQL ms by statement:`);
    for (const [k, v] of top) console.log(`   ${v.toFixed(0).padStart(7)}  ${k}`);
    times.clear();
    tenth = performance.now();
  }
}
console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s, ${(N / ((performance.now() - t0) / 1000)).toFixed(0)} docs/s; load ${os.loadavg()[0]?.toFixed(1)}`);
const sizes = await raw.query<{ name: string; bytes: number }>(
  `SELECT c.relname AS name, pg_relation_size(c.oid)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') OR c.relname LIKE 'pg_toast%' ORDER BY 2 DESC LIMIT 16`,
);
for (const r of sizes.rows) console.log(`${String((Number(r.bytes) / 2 ** 20).toFixed(1)).padStart(8)} MB  ${r.name}`);
await raw.close();
await registry.close();
console.log(`folder ${(diskBytes(dir) / 2 ** 20).toFixed(0)} MB (pg_wal ${(diskBytes(path.join(dir, 'pg_wal')) / 2 ** 20).toFixed(0)} MB), ${(diskBytes(dir) / N / 1024).toFixed(1)} KB per document`);
fs.rmSync(dir, { recursive: true, force: true });
