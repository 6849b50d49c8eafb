import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTokenBucketLimiter } from './rate-limit.ts';

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
