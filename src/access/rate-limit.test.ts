import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFailureThrottle, createTokenBucketLimiter } from './rate-limit.ts';

describe('token bucket', () => {
  it('allows a burst, then asks to wait until a token refills', () => {
    const rl = createTokenBucketLimiter({ perMinute: 60, burst: 3 });
    const t = 1_000_000;
    assert.equal(rl.take('k', t), 0);
    assert.equal(rl.take('k', t), 0);
    assert.equal(rl.take('k', t), 0);
    assert.equal(rl.take('k', t), 1, 'one token per second at 60/min');
    assert.equal(rl.take('other', t), 0, 'buckets are per key');
    assert.equal(rl.take('k', t + 1000), 0, 'refilled after a second');
    assert.equal(rl.take('k', t + 1000), 1);
  });

  it('never holds more than the burst however long it idles', () => {
    const rl = createTokenBucketLimiter({ perMinute: 600, burst: 2 });
    rl.take('k', 0);
    const later = 3_600_000;
    assert.equal(rl.take('k', later), 0);
    assert.equal(rl.take('k', later), 0);
    assert.ok(rl.take('k', later) > 0);
  });
});

describe('failed-attempt throttle', () => {
  it('allows perMinute failures, then blocks with the seconds until the next attempt, reported started once', () => {
    const t = createFailureThrottle({ perMinute: 3 });
    const now = 1_000_000;
    assert.equal(t.blockedFor('1.2.3.4', now), 0);
    assert.deepEqual(t.fail('1.2.3.4', now), { retryAfter: 0, started: false });
    assert.deepEqual(t.fail('1.2.3.4', now), { retryAfter: 0, started: false });
    assert.deepEqual(t.fail('1.2.3.4', now), { retryAfter: 20, started: true });
    assert.equal(t.blockedFor('1.2.3.4', now), 20);
    assert.equal(t.blockedFor('5.6.7.8', now), 0, 'per client');
    assert.equal(t.blockedFor('1.2.3.4', now + 10_000), 10);
    assert.equal(t.blockedFor('1.2.3.4', now + 20_000), 0, 'one attempt again after 60 / perMinute s');
    assert.deepEqual(t.fail('1.2.3.4', now + 20_000), { retryAfter: 20, started: true });
    assert.equal(t.blockedFor('1.2.3.4', now + 20_000 + 60_000), 0);
  });
});
