import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cosine } from '../vector.ts';
import { decodeWordVectors, encodeWordVectors } from './format.ts';

function pseudoRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

describe('word-vector cache format', () => {
  it('round-trips words and approximates vectors within Int8 precision', () => {
    const rand = pseudoRandom(7);
    const words = ['the', 'café', 'cross-country', "n't", 'zero'];
    const dims = 10;
    const vectors = Float32Array.from({ length: words.length * dims }, () => rand() * 4);
    vectors.fill(0, 4 * dims, 5 * dims); // an all-zero row must survive (scale 0)
    const table = decodeWordVectors(encodeWordVectors(words, vectors, dims));
    assert.deepEqual(table.words, words);
    assert.equal(table.dims, dims);
    for (let w = 0; w < words.length; w++) {
      for (let d = 0; d < dims; d++) {
        const back = table.values[w * dims + d]! * table.scales[w]!;
        const max = Math.max(...Array.from(vectors.subarray(w * dims, (w + 1) * dims), Math.abs));
        assert.ok(Math.abs(back - vectors[w * dims + d]!) <= max / 254 + 1e-6, `word ${w} dim ${d}`);
      }
    }
    assert.equal(table.scales[4], 0);
    assert.equal(table.count, words.length);
  });

  it('reads a table from a Buffer at an unaligned offset', () => {
    const good = encodeWordVectors(['x', 'yy'], Float32Array.from([1, -2, 3, 0.5]), 2);
    const shifted = Buffer.alloc(good.length + 1);
    good.copy(shifted, 1);
    const table = decodeWordVectors(shifted.subarray(1));
    assert.deepEqual(table.words, ['x', 'yy']);
    assert.ok(Math.abs(table.values[2]! * table.scales[1]! - 3) < 0.03);
  });

  it('keeps averaged vectors within 0.1% cosine of the Float32 average', () => {
    const rand = pseudoRandom(42);
    const dims = 100;
    const n = 50;
    const words = Array.from({ length: n }, (_, i) => `w${i}`);
    const vectors = Float32Array.from({ length: n * dims }, () => rand());
    const table = decodeWordVectors(encodeWordVectors(words, vectors, dims));
    const exact = new Float32Array(dims);
    const approx = new Float32Array(dims);
    for (let w = 0; w < n; w += 3) {
      for (let d = 0; d < dims; d++) {
        exact[d]! += vectors[w * dims + d]!;
        approx[d]! += table.values[w * dims + d]! * table.scales[w]!;
      }
    }
    assert.ok(cosine(exact, approx) > 0.999, `cosine ${cosine(exact, approx)}`);
  });

  it('rejects foreign, truncated or inconsistent files', () => {
    assert.throws(() => decodeWordVectors(Buffer.from('not a cache at all, definitely')), /bad magic/);
    const good = encodeWordVectors(['a', 'b'], new Float32Array(4).fill(1), 2);
    assert.throws(() => decodeWordVectors(good.subarray(0, good.length - 1)), /truncated/);
    const lying = Buffer.from(encodeWordVectors(['ab', 'c'], new Float32Array(4).fill(1), 2));
    lying.writeUInt8(0x0a, 21); // 'a\n\nc': three words under a header that says two
    assert.throws(() => decodeWordVectors(lying), /does not match its header/);
    assert.throws(() => encodeWordVectors(['a'], new Float32Array(3), 2), /expected 2 values/);
    assert.throws(() => encodeWordVectors(['a\nb'], new Float32Array(2), 2), /newline/);
  });
});
