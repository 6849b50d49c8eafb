import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ageDays, temporalDecay, temporalStatus } from './decay.ts';

const now = new Date('2026-06-01T00:00:00Z');

describe('temporal decay', () => {
  it('computes base * exp(-lambda * days) with lambda 0.05 by default', () => {
    assert.equal(temporalDecay(0.8, 0), 0.8);
    assert.ok(Math.abs(temporalDecay(1, 10) - Math.exp(-0.5)) < 1e-12);
    assert.ok(Math.abs(temporalDecay(0.5, 20, 0.1) - 0.5 * Math.exp(-2)) < 1e-12);
    assert.equal(temporalDecay(1, Number.POSITIVE_INFINITY), 0);
  });

  it('measures age in days from the timestamp, never negative', () => {
    assert.equal(ageDays('2026-05-31T00:00:00Z', now), 1);
    assert.equal(ageDays('2026-06-02T00:00:00Z', now), 0);
    assert.equal(ageDays(null, now), Number.POSITIVE_INFINITY);
    assert.equal(ageDays('not a date', now), Number.POSITIVE_INFINITY);
  });

  it('classifies recent ≤ 7, stale 7-30, historical > 30 days', () => {
    assert.equal(temporalStatus(0), 'recent');
    assert.equal(temporalStatus(7), 'recent');
    assert.equal(temporalStatus(7.01), 'stale');
    assert.equal(temporalStatus(30), 'stale');
    assert.equal(temporalStatus(30.01), 'historical');
    assert.equal(temporalStatus(Number.POSITIVE_INFINITY), 'historical');
  });
});
