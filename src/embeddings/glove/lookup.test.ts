import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeWordVectors, encodeWordVectors } from './format.ts';
import { createWordLookup } from './lookup.ts';

const tableOf = (words: string[]) => decodeWordVectors(encodeWordVectors(words, new Float32Array(words.length * 2).fill(0.5), 2));

describe('word lookup over the cache vocabulary', () => {
  it('finds every word of a large vocabulary at its row, as a Map would', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
    const lookup = createWordLookup(tableOf(words));
    const map = new Map(words.map((w, i) => [w, i]));
    for (const w of words) assert.equal(lookup.rowOf(w), map.get(w));
    for (const w of ['', 'w', 'wzzzz', 'W0', 'w0 ']) assert.equal(lookup.rowOf(w), -1, JSON.stringify(w));
  });

  it('compares UTF-8 bytes, so accented, CJK and astral words match only themselves', () => {
    const words = ['cafe', 'café', '東京', 'naïve', '😀', "n't"];
    const lookup = createWordLookup(tableOf(words));
    for (const [i, w] of words.entries()) assert.equal(lookup.rowOf(w), i, w);
    assert.equal(lookup.rowOf('cafè'), -1);
    assert.equal(lookup.rowOf('東'), -1);
    assert.equal(lookup.rowOf('x'.repeat(500)), -1, 'a word longer than the scratch buffer');
  });

  it('resolves a word stored twice to its last row', () => {
    assert.equal(createWordLookup(tableOf(['a', 'b', 'a'])).rowOf('a'), 2);
  });

  it('answers -1 on an empty table', () => {
    assert.equal(createWordLookup(tableOf([])).rowOf('a'), -1);
  });
});
