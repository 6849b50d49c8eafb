// `node --import tsx scripts/profile-push.ts [docs]` (default 19,000: below HNSW_MIN_VECTORS, so no HNSW index is
// built and the rest of the write path shows alone): `atrium serve` on an embedded data folder, the peers corpus
// pushed through POST /v1/connectors/{id}/documents in batches of 1,000 as the peers bench does, the server's CPU
// per batch read from /proc. Prints docs/s (wall and server CPU) per batch, the first and the last, and the folder's
// bytes per document. Issue 29's push-path profile; not a benchmark (no report section).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createConnector, push, startServer } from '../bench/peers/atrium.ts';
import { diskBytes, loadCorpus } from '../bench/peers/corpus.ts';
import { cpuSeconds } from '../bench/peers/measure.ts';

const N = Number(process.argv[2] ?? 19_000);
const BATCH = 1000;
const { docs } = await loadCorpus(N);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-push-'));
const server = await startServer({ ATRIUM_DATA_DIR: dir });
try {
  const connector = await createConnector(server.url);
  const rows: { at: number; wall: number; cpu: number }[] = [];
  const t0 = { wall: performance.now(), cpu: cpuSeconds(server.pid) };
  for (let i = 0; i < N; i += BATCH) {
    const s = { wall: performance.now(), cpu: cpuSeconds(server.pid) };
    await push(server.url, connector, docs.slice(i, i + BATCH));
    rows.push({ at: i, wall: (performance.now() - s.wall) / 1000, cpu: cpuSeconds(server.pid) - s.cpu });
    const r = rows[rows.length - 1];
    if (r && ((i / BATCH) % 4 === 0 || i + BATCH >= N)) {
      console.log(`batch at ${i}: ${(BATCH / r.wall).toFixed(0)} docs/s wall, ${(BATCH / r.cpu).toFixed(0)} docs/s server CPU; load ${os.loadavg()[0]?.toFixed(1)}`);
    }
  }
  const wall = (performance.now() - t0.wall) / 1000;
  const cpu = cpuSeconds(server.pid) - t0.cpu;
  const first = rows[0];
  const last = rows[rows.length - 1];
  console.log(`total ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s server CPU: ${(N / wall).toFixed(0)} docs/s wall, ${(N / cpu).toFixed(0)} docs/s CPU (${((cpu * 1e6) / N).toFixed(0)} µs per document); load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  if (first && last) console.log(`first batch ${(first.cpu * 1000).toFixed(0)} ms server CPU, last ${(last.cpu * 1000).toFixed(0)} ms (${(last.cpu / first.cpu).toFixed(2)}×)`);
} finally {
  await server.stop();
}
console.log(`folder ${(diskBytes(dir) / 2 ** 20).toFixed(0)} MB (pg_wal ${(diskBytes(path.join(dir, 'pg_wal')) / 2 ** 20).toFixed(0)} MB), ${(diskBytes(dir) / N / 1024).toFixed(1)} KB per document`);
fs.rmSync(dir, { recursive: true, force: true });
