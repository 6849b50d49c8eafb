import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRetryableStatus, retryDelayMs } from './backoff.ts';

describe('retry policy', () => {
  it('retries rate limits and server errors only', () => {
    for (const s of [408, 429, 500, 502, 503, 504]) assert.ok(isRetryableStatus(s), String(s));
    for (const s of [400, 401, 403, 404, 413, 422]) assert.ok(!isRetryableStatus(s), String(s));
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
