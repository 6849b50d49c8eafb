import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cosine } from '../vector.ts';
import { averageWordVectors, indexWordVectors, lookupRows } from './average.ts';
import { decodeWordVectors, encodeWordVectors } from './format.ts';

// A tiny vocabulary in "frequency order": 'the' (rank 0) is a stop word, the rest are content words.
const words = ['the', 'of', 'coffee', 'espresso', 'aircraft', 'cross', 'country'];
const dims = 4;
const rows: number[][] = [
  [0, 0, 0, 1], // the
  [0, 0, 1, 0], // of
  [1, 0, 0, 0], // coffee
  [0.9, 0.1, 0, 0], // espresso
  [0, 1, 0, 0], // aircraft
  [0, 0.5, 0.5, 0], // cross
  [0, 0.5, -0.5, 0], // country
];
const table = decodeWordVectors(encodeWordVectors(words, Float32Array.from(rows.flat()), dims));

describe('averaging word vectors', () => {
  const mean = indexWordVectors(table, 'mean');
  const sif = indexWordVectors(table, 'sif');

  it('drops stop words, splits unknown hyphenated compounds, ignores unknown words', () => {
    assert.deepEqual(lookupRows(mean, 'The coffee of the unknownword').content, [2]);
    assert.deepEqual(lookupRows(mean, 'cross-country').content, [5, 6]);
  });

  it('returns unit vectors whose direction follows the content words', () => {
    const v = averageWordVectors(mean, 'The coffee and the espresso');
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    assert.ok(cosine(v, averageWordVectors(mean, 'espresso')) > cosine(v, averageWordVectors(mean, 'aircraft')));
    assert.ok(Math.abs(v[3]!) < 1e-6, 'the stop word "the" contributed nothing');
  });

  it('falls back to stop words when a text has nothing else, and to the zero vector for no known word', () => {
    const v = averageWordVectors(mean, 'of the');
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    assert.deepEqual(Array.from(averageWordVectors(mean, 'zzz qqq')), [0, 0, 0, 0]);
    assert.deepEqual(Array.from(averageWordVectors(mean, '')), [0, 0, 0, 0]);
  });

  it('weights frequent words down under SIF', () => {
    // 'coffee' (rank 2) is more frequent than 'aircraft' (rank 4): SIF tilts the average toward aircraft.
    const plain = averageWordVectors(mean, 'coffee aircraft');
    const weighted = averageWordVectors(sif, 'coffee aircraft');
    assert.ok(Math.abs(plain[0]! - plain[1]!) < 0.02, 'the plain mean is balanced');
    assert.ok(weighted[1]! > weighted[0]!, 'SIF favours the rarer word');
  });
});
