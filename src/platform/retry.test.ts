import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, parseRetryAfter } from './retry.ts';

describe('retry timing', () => {
  it('backoffMs doubles per attempt with jitter in [cap/2, cap], capped', () => {
    const policy = { baseMs: 1000, capMs: 600_000 };
    assert.equal(backoffMs(1, policy, () => 0), 500);
    assert.equal(backoffMs(1, policy, () => 1), 1000);
    assert.equal(backoffMs(0, policy, () => 1), 1000);
    assert.equal(backoffMs(3, policy, () => 1), 4000);
    assert.equal(backoffMs(30, policy, () => 1), 600_000);
    assert.equal(backoffMs(30, { baseMs: 50, capMs: 5000 }, () => 0), 2500);
  });

  it('parseRetryAfter reads delta seconds and HTTP dates; anything else is null', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('0.5', now), 500);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(null, now), null);
  });
});
