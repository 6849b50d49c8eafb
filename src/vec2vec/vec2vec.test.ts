import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMap, encodeMap } from './codec.ts';
import { type Mat, mat, normalizeInPlace, row } from './linalg.ts';
import { fitLinearSelected, fitRidge } from './linear.ts';
import { applyRaw, type LinearMap, translateVector } from './map.ts';
import { cycleLoss, evaluateDirection, top1Accuracy } from './metrics.ts';
import { dedupeTexts, gaussian, seededRandom, splitByHash } from './split.ts';
import { trainTranslationPair } from './train.ts';

function randomMatrix(rows: number, cols: number, random: () => number, scale = 1): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < out.length; i++) out[i] = gaussian(random) * scale;
  return out;
}

function randomUnitRows(n: number, d: number, random: () => number): Mat {
  const m = mat(n, d, randomMatrix(n, d, random));
  for (let r = 0; r < n; r++) normalizeInPlace(row(m, r));
  return m;
}

/** y = normalize(x·A + noise): a true linear relation up to normalization. */
function linearPairs(n: number, dx: number, dy: number, seed: number, noise = 0.02): { texts: string[]; x: Mat; y: Mat; a: Float32Array } {
  const random = seededRandom(seed);
  const x = randomUnitRows(n, dx, random);
  const a = randomMatrix(dx, dy, random, 1 / Math.sqrt(dx));
  const y = mat(n, dy);
  for (let r = 0; r < n; r++) {
    const out = row(y, r);
    const lin: LinearMap = { kind: 'linear', method: 'ridge', sourceDim: dx, targetDim: dy, weight: a, bias: new Float32Array(dy) };
    applyRaw(lin, row(x, r), out);
    for (let j = 0; j < dy; j++) out[j]! += gaussian(random) * noise;
    normalizeInPlace(out);
  }
  return { texts: Array.from({ length: n }, (_, i) => `sentence number ${i}`), x, y, a };
}

function randomOrthogonal(d: number, random: () => number): Float32Array {
  // Gram-Schmidt on a Gaussian matrix.
  const q = randomMatrix(d, d, random);
  for (let i = 0; i < d; i++) {
    const ri = q.subarray(i * d, (i + 1) * d);
    for (let k = 0; k < i; k++) {
      const rk = q.subarray(k * d, (k + 1) * d);
      let s = 0;
      for (let j = 0; j < d; j++) s += ri[j]! * rk[j]!;
      for (let j = 0; j < d; j++) ri[j]! -= s * rk[j]!;
    }
    normalizeInPlace(ri);
  }
  return q;
}

describe('vec2vec confidence is honest', () => {
  it('scores a true linear relation near one on held-out pairs', async () => {
    const { texts, x, y } = linearPairs(1500, 24, 16, 1);
    const trained = await trainTranslationPair(texts, x, y, { validationSplit: 0.15 });
    const m = trained.metrics;
    assert.ok(m.forward.confidence > 0.95, `forward confidence ${m.forward.confidence}`);
    assert.ok(m.forward.mean_cosine > 0.97, `forward cosine ${m.forward.mean_cosine}`);
    assert.ok(m.forward.top1_accuracy > 0.95, `top-1 ${m.forward.top1_accuracy}`);
    assert.ok(m.held_out_count > 150 && m.held_out_count < 300, `held out ${m.held_out_count}`);
    assert.equal(m.sample_count, 1500);
    assert.equal(m.kind, 'linear');
    // 24 → 16 loses information, so the way back is only partly predictable — and says so.
    assert.ok(m.backward.confidence < m.forward.confidence);
  });

  it('scores a random pairing near zero', async () => {
    const random = seededRandom(2);
    const x = randomUnitRows(1500, 24, random);
    const y = randomUnitRows(1500, 16, random);
    const texts = Array.from({ length: 1500 }, (_, i) => `text ${i}`);
    const trained = await trainTranslationPair(texts, x, y);
    assert.ok(trained.metrics.forward.confidence < 0.05, `forward confidence ${trained.metrics.forward.confidence}`);
    assert.ok(trained.metrics.backward.confidence < 0.05, `backward confidence ${trained.metrics.backward.confidence}`);
    assert.ok(trained.metrics.forward.top1_accuracy < 0.05, `top-1 ${trained.metrics.forward.top1_accuracy}`);
  });

  it('gives a random invertible map zero cycle loss but zero confidence', () => {
    const random = seededRandom(3);
    const d = 16;
    const w = randomOrthogonal(d, random);
    const wt = new Float32Array(d * d);
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) wt[j * d + i] = w[i * d + j]!;
    const f: LinearMap = { kind: 'linear', method: 'procrustes', sourceDim: d, targetDim: d, weight: w, bias: new Float32Array(d) };
    const g: LinearMap = { ...f, weight: wt };
    const x = randomUnitRows(400, d, random);
    const y = randomUnitRows(400, d, random);
    assert.ok(cycleLoss(f, g, x, y) < 1e-8, 'G = F⁻¹ has no cycle loss');
    assert.ok(evaluateDirection(f, x, y).confidence < 0.02, 'yet it predicts nothing');
  });
});

describe('vec2vec fitting', () => {
  it('recovers a rotation when dimensions match', () => {
    const random = seededRandom(4);
    const d = 20;
    const w = randomOrthogonal(d, random);
    const x = randomUnitRows(800, d, random);
    const y = mat(800, d);
    const rot: LinearMap = { kind: 'linear', method: 'procrustes', sourceDim: d, targetDim: d, weight: w, bias: new Float32Array(d) };
    for (let r = 0; r < 800; r++) applyRaw(rot, row(x, r), row(y, r));
    const half = (m: Mat, from: number, to: number) => mat(to - from, d, m.data.slice(from * d, to * d));
    const fit = fitLinearSelected({ x: half(x, 0, 600), y: half(y, 0, 600) }, { x: half(x, 600, 800), y: half(y, 600, 800) });
    assert.ok(fit.candidates.some((c) => c.method === 'procrustes'));
    const out = translateVector(fit.map, row(x, 0));
    let cos = 0;
    for (let j = 0; j < d; j++) cos += out[j]! * row(y, 0)[j]!;
    assert.ok(cos > 0.999, `cosine ${cos}`);
  });

  it('ridge shrinks more with a larger strength', () => {
    const { x, y } = linearPairs(300, 12, 8, 5, 0.3);
    const norm = (m: LinearMap) => Math.sqrt(m.weight.reduce((s, v) => s + v * v, 0));
    assert.ok(norm(fitRidge(x, y, 10)) < norm(fitRidge(x, y, 1e-4)));
  });

  it('uses the residual MLP where the relation is not linear', async () => {
    const random = seededRandom(6);
    const n = 2000;
    const dx = 12;
    const dy = 8;
    const x = randomUnitRows(n, dx, random);
    const a = randomMatrix(dx, dy, random, 1.5);
    const y = mat(n, dy);
    for (let r = 0; r < n; r++) {
      const out = row(y, r);
      const xr = row(x, r);
      for (let j = 0; j < dy; j++) {
        let s = 0;
        for (let i = 0; i < dx; i++) s += xr[i]! * a[i * dy + j]!;
        out[j] = Math.abs(s) + 0.3 * s; // a kink no linear map can follow
      }
      normalizeInPlace(out);
    }
    const texts = Array.from({ length: n }, (_, i) => `t${i}`);
    const lin = await trainTranslationPair(texts, x, y, { useNeural: false });
    const neu = await trainTranslationPair(texts, x, y, { useNeural: true, epochs: 30, learningRate: 3e-3, hidden: 64 });
    assert.equal(neu.metrics.kind, 'neural');
    assert.ok(neu.metrics.neural?.forward_used);
    assert.ok(
      neu.metrics.forward.confidence > lin.metrics.forward.confidence + 0.05,
      `neural ${neu.metrics.forward.confidence} vs linear ${lin.metrics.forward.confidence}`,
    );
  });

  it('round-trips linear and neural maps through the binary codec', async () => {
    const { texts, x, y } = linearPairs(600, 10, 6, 7, 0.1);
    const trained = await trainTranslationPair(texts, x, y, { useNeural: true, epochs: 3, hidden: 8, patience: 5 });
    for (const map of [trained.forward, trained.backward, { ...fitRidge(x, y, 0.01) }]) {
      const back = decodeMap(encodeMap(map));
      assert.equal(back.kind, map.kind);
      assert.deepEqual(translateVector(back, row(map.sourceDim === 10 ? x : y, 3)), translateVector(map, row(map.sourceDim === 10 ? x : y, 3)));
    }
    assert.throws(() => decodeMap(new Uint8Array([1, 2, 3, 4, 0, 0, 0, 0])), /magic/);
  });
});

describe('vec2vec splits and retrieval', () => {
  it('splits by text hash, stably as the corpus grows', () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `document ${i} about things`);
    const a = splitByHash(texts.slice(0, 2000), 0.1, 42);
    const b = splitByHash(texts, 0.1, 42);
    const heldA = new Set(a.heldOut.map((i) => texts[i]));
    const heldB = new Set(b.heldOut.map((i) => texts[i]));
    for (const t of heldA) assert.ok(heldB.has(t), 'a held-out text stays held out');
    assert.ok(Math.abs(b.heldOut.length / 5000 - 0.1) < 0.02, `held-out share ${b.heldOut.length / 5000}`);
    assert.equal(a.train.length + a.heldOut.length, 2000);
  });

  it('dedupes texts after whitespace normalization and drops empties', () => {
    assert.deepEqual(dedupeTexts(['a  b', ' a b ', '', '   ', 'c']), ['a b', 'c']);
  });

  it('measures top-1 among at most the candidate limit', () => {
    const random = seededRandom(9);
    const y = randomUnitRows(50, 8, random);
    assert.deepEqual(top1Accuracy(y, y), { accuracy: 1, candidates: 50 });
    assert.equal(top1Accuracy(y, y, 10).candidates, 10);
  });
});
