import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planDamping } from './damping.ts';
import { computeUserEntropy, entropyLevel } from './entropy.ts';

const now = new Date('2026-06-01T12:00:00Z');
const ago = (min: number) => new Date(now.getTime() - min * 60_000);

describe('user entropy', () => {
  it('is 0 for a single query and for repeats of one topic', () => {
    assert.equal(computeUserEntropy([{ at: now, terms: ['deploy', 'billing'] }], now).entropy, 0);
    const same = [20, 15, 10, 1].map((m) => ({ at: ago(m), terms: ['deploy', 'billing', 'service'] }));
    const e = computeUserEntropy([...same, { at: now, terms: ['billing', 'deploy'] }], now);
    assert.equal(e.entropy, 0);
    assert.equal(e.topics, 1);
    assert.equal(e.level, 'very_low');
  });

  it('is 2 bits for four equally recent distinct topics', () => {
    const h = ['alpha', 'beta', 'gamma', 'delta'].map((t) => ({ at: now, terms: [t] }));
    const e = computeUserEntropy(h, now);
    assert.equal(e.topic_bits, 2);
    assert.equal(e.rate_bits, 0);
    assert.equal(e.level, 'normal');
  });

  it('weights older queries less, and ignores those outside the window or in the future', () => {
    const e = computeUserEntropy(
      [
        { at: now, terms: ['alpha'] },
        { at: ago(15), terms: ['beta'] },
        { at: ago(31), terms: ['gamma'] },
        { at: new Date(now.getTime() + 60_000), terms: ['delta'] },
      ],
      now,
    );
    // weights 1 and e^-1: H = -(p log p + q log q), p = 1/(1+e^-1)
    const p = 1 / (1 + Math.exp(-1));
    const expected = -(p * Math.log2(p) + (1 - p) * Math.log2(1 - p));
    assert.equal(e.events, 2);
    assert.ok(Math.abs(e.topic_bits - expected) < 1e-4);
  });

  it('adds a rate term above 5 queries in 5 minutes', () => {
    const h = Array.from({ length: 20 }, (_, i) => ({ at: ago(i * 0.2), terms: ['deploy'] }));
    const e = computeUserEntropy(h, now);
    assert.equal(e.topic_bits, 0);
    assert.equal(e.rate_bits, 2); // log2(20 / 5)
    assert.equal(e.entropy, 2);
  });

  it('is deterministic whatever the history order', () => {
    const h = [
      { at: ago(3), terms: ['a', 'b'] },
      { at: ago(2), terms: ['b', 'c'] },
      { at: ago(1), terms: ['x'] },
      { at: now, terms: ['y', 'z'] },
    ];
    assert.deepEqual(computeUserEntropy(h, now), computeUserEntropy([...h].reverse(), now));
  });

  it('maps entropy to the five levels at the documented bounds', () => {
    const cases: [number, string][] = [
      [0, 'very_low'],
      [0.4999, 'very_low'],
      [0.5, 'low'],
      [0.9999, 'low'],
      [1, 'normal'],
      [2, 'normal'],
      [2.0001, 'high'],
      [3, 'high'],
      [3.0001, 'critical'],
    ];
    for (const [e, level] of cases) assert.equal(entropyLevel(e), level, String(e));
  });

  it('moves the high and critical bounds with the damping threshold, so damping is on exactly at those levels', () => {
    for (const threshold of [0.8, 2, 5]) {
      for (const e of [0, 0.3, 0.7, 0.8, 0.81, 1.5, 1.8, 1.81, 2, 2.5, 4, 5, 5.5, 6, 6.01, 9]) {
        const level = entropyLevel(e, threshold);
        const damping = planDamping(e, 10, threshold).active;
        assert.equal(damping, level === 'high' || level === 'critical', `entropy ${e}, threshold ${threshold}: ${level}`);
        assert.equal(level === 'critical', e > threshold + 1, `entropy ${e}, threshold ${threshold}: ${level}`);
      }
    }
    assert.equal(entropyLevel(4.0179, 5), 'normal');
    assert.equal(computeUserEntropy([], new Date(), undefined, 0).level, 'normal');
  });
});
