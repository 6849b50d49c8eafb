import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBuckets, effectiveLimits, parseRetryAfter, rateLimitDelayMs, takeToken } from './limits.ts';

describe('connector rate limits', () => {
  it('takes the stricter of settings and vendor limits', () => {
    assert.deepEqual(effectiveLimits({ requests_per_minute: 60, requests_per_hour: 1000 }, { perMinute: 100 }), { perSecond: undefined, perMinute: 60, perHour: 1000 });
    assert.deepEqual(effectiveLimits({}, { perSecond: 3 }), { perSecond: 3, perMinute: undefined, perHour: undefined });
    assert.deepEqual(effectiveLimits({ requests_per_hour: 9000 }, { perHour: 5000 }).perHour, 5000);
  });

  it('a 3 req/s bucket allows a burst of 3, then one every 333 ms', () => {
    const b = createBuckets({ perSecond: 3 }, 0);
    assert.equal(takeToken(b, 0), 0);
    assert.equal(takeToken(b, 0), 0);
    assert.equal(takeToken(b, 0), 0);
    const wait = takeToken(b, 0);
    assert.equal(wait, 334);
    assert.equal(takeToken(b, 334), 0);
    assert.ok(takeToken(b, 334) > 0);
  });

  it('every window must have a token (minute and hour together)', () => {
    const b = createBuckets({ perMinute: 2, perHour: 3 }, 0);
    assert.equal(takeToken(b, 0), 0);
    assert.equal(takeToken(b, 0), 0);
    assert.equal(takeToken(b, 0), 30_000);
    assert.equal(takeToken(b, 30_000), 0);
    // the hour bucket is now the binding one
    assert.ok(takeToken(b, 60_000) > 60_000);
  });

  it('honours Retry-After, else backs off exponentially with jitter', () => {
    assert.equal(rateLimitDelayMs(3, 7000), 7000);
    assert.equal(rateLimitDelayMs(1, null, () => 0), 500);
    assert.equal(rateLimitDelayMs(1, null, () => 1), 1000);
    assert.equal(rateLimitDelayMs(4, null, () => 1), 8000);
    assert.equal(rateLimitDelayMs(40, null, () => 1), 300_000);
    assert.equal(parseRetryAfter('2', 0), 2000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 10_000);
    assert.equal(parseRetryAfter('soon', 0), null);
    assert.equal(parseRetryAfter(undefined, 0), null);
  });
});
