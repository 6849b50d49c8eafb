// `node --import tsx scripts/ann-probe.ts <docs>`: the usearch graph (src/documents/ann/hnsw.ts) over the peers
// corpus's GloVe vectors in isolation: CPU to add them, CPU per search at k = 30 and k = 1,000, recall@30 against an
// exact scan (200 queries: the GloVe vectors of the shared sets' queries), save/load time and file size. Issue 29.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIMS, embedder, latencyQueries, loadCorpus, vectorOf } from '../bench/peers/corpus.ts';
import { ChunkGraph } from '../src/documents/ann/hnsw.ts';

const N = Number(process.argv[2] ?? 20_000);
const { vectors } = await loadCorpus(N);
const e = await embedder();
const queries = await e.embed(await latencyQueries(200));
await e.close();
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const EF = Number(process.env.ANN_EF ?? 0) || undefined;
const g = new ChunkGraph(DIMS, EF);
let c = cpu();
for (let i = 0; i < N; i += 1000) {
  const keys = Array.from({ length: Math.min(1000, N - i) }, (_, j) => i + j + 1);
  g.add(keys, keys.map((k) => vectorOf(vectors, k - 1)));
}
const addMs = cpu() - c;
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
const exact = (q: Float32Array, k: number) => {
  const qn = norm(q);
  const scores: [number, number][] = [];
  for (let i = 0; i < N; i++) {
    const v = vectorOf(vectors, i);
    let d = 0;
    for (let j = 0; j < DIMS; j++) d += (v[j] ?? 0) * (q[j] ?? 0);
    scores.push([i + 1, d / (qn * norm(v))]);
  }
  return scores.sort((a, b) => b[1] - a[1]).slice(0, k).map((x) => x[0]);
};
let hits = 0;
for (const q of queries) {
  const want = new Set(exact(q, 30));
  hits += g.search(q, 30).filter((k) => want.has(k)).length;
}
const time = (k: number) => {
  const s = cpu();
  for (const q of queries) g.search(q, k);
  return (cpu() - s) / queries.length;
};
const k30 = time(30);
const k1000 = time(1000);
const file = path.join(os.tmpdir(), `ann-probe-${process.pid}.usearch`);
c = cpu();
g.save(file);
const saveMs = cpu() - c;
const bytes = fs.statSync(file).size;
c = cpu();
new ChunkGraph(DIMS).load(file, g.keys());
const loadMs = cpu() - c;
fs.rmSync(file);
console.log(
  `ef ${EF ?? 'default'}: ${N} vectors (${DIMS}-d): add ${addMs.toFixed(0)} ms CPU (${((addMs / N) * 1000).toFixed(0)} µs each); search CPU ${k30.toFixed(2)} ms at k=30, ${k1000.toFixed(2)} ms at k=1000; ` +
    `recall@30 ${(hits / (queries.length * 30)).toFixed(3)}; file ${(bytes / 2 ** 20).toFixed(1)} MB, save ${saveMs.toFixed(0)} ms, load ${loadMs.toFixed(0)} ms CPU; load average ${os.loadavg()[0]?.toFixed(1)}`,
);
