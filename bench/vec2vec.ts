// `npm run bench -- vec2vec`: translation latency per vector and training time (linear, neural) on
// synthetic parallel embeddings with a shared latent structure (no model loading, so it measures the math).
import { machineLine, writeBenchSection } from './report.ts';
import { type Mat, mat, normalizeInPlace, row, seededRandom, trainTranslationPair, type TranslationMap, translateVector } from '../src/vec2vec/index.ts';

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
}

/** n pairs: x = normalize(zA + ε), y = normalize(tanh(zB) + ε) from a shared 64-d latent z. */
function pairs(n: number, dx: number, dy: number, seed: number): { texts: string[]; x: Mat; y: Mat } {
  const r = seededRandom(seed);
  const k = 64;
  const a = Float32Array.from({ length: k * dx }, () => gaussian(r));
  const b = Float32Array.from({ length: k * dy }, () => gaussian(r) / Math.sqrt(k));
  const x = mat(n, dx);
  const y = mat(n, dy);
  const z = new Float32Array(k);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) z[j] = gaussian(r);
    const xr = row(x, i);
    const yr = row(y, i);
    for (let j = 0; j < k; j++) {
      for (let d = 0; d < dx; d++) xr[d]! += z[j]! * a[j * dx + d]!;
      for (let d = 0; d < dy; d++) yr[d]! += z[j]! * b[j * dy + d]!;
    }
    for (let d = 0; d < dx; d++) xr[d]! += 0.3 * gaussian(r);
    for (let d = 0; d < dy; d++) yr[d] = Math.tanh(yr[d]!) + 0.1 * gaussian(r);
    normalizeInPlace(xr);
    normalizeInPlace(yr);
  }
  return { texts: Array.from({ length: n }, (_, i) => `synthetic text ${i}`), x, y };
}

function latencyMicros(map: TranslationMap, x: Mat): number {
  const out = new Float32Array(map.targetDim);
  const scratch = new Float32Array(map.kind === 'neural' ? map.hidden : 0);
  for (let i = 0; i < 2000; i++) translateVector(map, row(x, i % x.rows), out, scratch); // warm up
  const n = 20_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) translateVector(map, row(x, i % x.rows), out, scratch);
  return Number(process.hrtime.bigint() - t) / 1000 / n;
}

const rows: string[] = [];
const f = (v: number, d = 1) => v.toFixed(d);

for (const [dx, dy] of [
  [512, 100],
  [768, 768],
] as const) {
  const data = pairs(10_000, dx, dy, dx + dy);
  const t0 = performance.now();
  const linear = await trainTranslationPair(data.texts, data.x, data.y, { useNeural: false });
  const linearSeconds = (performance.now() - t0) / 1000;
  const m = linear.metrics;
  rows.push(
    `| ${dx} → ${dy} | linear (${m.linear.forward.method}) | ${f(linearSeconds)} s | ${f(latencyMicros(linear.forward, data.x), 1)} µs | ${f(latencyMicros(linear.backward, data.y), 1)} µs | ${f(m.forward.confidence, 3)} / ${f(m.backward.confidence, 3)} | ${f(m.forward.top1_accuracy, 3)} |`,
  );
  console.error(rows.at(-1));
  if (dx === 512) {
    const t1 = performance.now();
    const neural = await trainTranslationPair(data.texts, data.x, data.y, { useNeural: true, epochs: 10, patience: 10 });
    const neuralSeconds = (performance.now() - t1) / 1000;
    const n = neural.metrics;
    rows.push(
      `| ${dx} → ${dy} | neural (h=128, ${n.neural?.epochs_run} epochs, best ${n.neural?.best_epoch}) | ${f(neuralSeconds)} s | ${f(latencyMicros(neural.forward, data.x), 1)} µs | ${f(latencyMicros(neural.backward, data.y), 1)} µs | ${f(n.forward.confidence, 3)} / ${f(n.backward.confidence, 3)} | ${f(n.forward.top1_accuracy, 3)} |`,
    );
    console.error(rows.at(-1));
  }
}

await writeBenchSection(
  'vec2vec',
  `## Embedding translation (vec2vec)

${machineLine()}

Command: \`npm run bench -- vec2vec\`. Synthetic parallel embeddings (10,000 pairs sharing a 64-d latent
structure, target side non-linear); training fits both directions (F and G) including λ selection over
7 strengths, Procrustes where dimensions match, and the held-out evaluation. Latency: one served
translation (map + L2 normalization) per vector, single thread, buffers reused, mean of 20,000.
Targets: translate ≤ 50 µs (512 → 100) and ≤ 200 µs (768 → 768); linear training on 10k pairs ≤ 10 s.

| pair | mode | training (both directions) | translate F | translate G | confidence F / G | top-1 F (1,000 cand.) |
|---|---|---|---|---|---|---|
${rows.join('\n')}
`,
);
