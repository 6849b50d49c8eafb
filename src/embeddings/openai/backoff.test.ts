import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from './backoff.ts';

describe('retry policy', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it('retries rate limits and server errors only', () => {
    for (const s of [408, 429, 500, 502, 503, 504]) assert.ok(isRetryableStatus(s), String(s));
    for (const s of [400, 401, 403, 404, 413, 422]) assert.ok(!isRetryableStatus(s), String(s));
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('0.5', now), 500);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });

  it('honours Retry-After up to the cap, else backs off exponentially with jitter', () => {
    const policy = { baseMs: 100, maxMs: 5000 };
    assert.equal(retryDelayMs(0, 2000, policy), 2000);
    assert.equal(retryDelayMs(0, 60_000, policy), 5000);
    assert.deepEqual([0, 1, 2, 3].map((a) => retryDelayMs(a, undefined, policy, () => 0)), [50, 100, 200, 400]);
    assert.deepEqual([0, 1, 2, 3].map((a) => retryDelayMs(a, undefined, policy, () => 1)), [100, 200, 400, 800]);
    assert.equal(retryDelayMs(20, undefined, policy, () => 1), 5000);
  });
});
