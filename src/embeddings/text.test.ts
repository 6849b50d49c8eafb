import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STOP_WORDS, sifWeight, tokenizeWords } from './text.ts';

describe('tokenizeWords', () => {
  it('lowercases and keeps words, numbers, hyphenated compounds and clitics', () => {
    assert.deepEqual(tokenizeWords("The Cross-Country race didn't start at 9.30, O’Brien said!"), [
      'the',
      'cross-country',
      'race',
      "didn't",
      'start',
      'at',
      '9.30',
      "o'brien",
      'said',
    ]);
  });

  it('handles accents and full-width forms, and yields nothing for punctuation only', () => {
    assert.deepEqual(tokenizeWords('Café ＡＢＣ'), ['café', 'abc']);
    assert.deepEqual(tokenizeWords(' -- !? '), []);
  });
});

describe('stop words and SIF weights', () => {
  it('treats function words as stop words but keeps negations and content words', () => {
    for (const w of ['the', 'of', 'and', 'is']) assert.ok(STOP_WORDS.has(w), w);
    for (const w of ['not', 'no', 'coffee', 'system']) assert.ok(!STOP_WORDS.has(w), w);
  });

  it('weights frequent (low-rank) words down, monotonically, within (0, 1)', () => {
    const n = 341_000;
    const ws = [0, 10, 100, 1000, 10_000, 100_000].map((r) => sifWeight(r, n));
    for (let i = 1; i < ws.length; i++) assert.ok(ws[i]! > ws[i - 1]!, `rank weights increase: ${ws.join(', ')}`);
    assert.ok(ws[0]! > 0 && ws[0]! < 0.05, 'the most frequent word is nearly ignored');
    assert.ok(ws.at(-1)! > 0.99 && ws.at(-1)! < 1, 'rare words get weight near 1');
  });
});
