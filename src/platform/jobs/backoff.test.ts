import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs } from './worker.ts';

describe('backoffMs', () => {
  it('doubles per attempt with jitter in [cap/2, cap] and caps at 10 minutes', () => {
    assert.equal(backoffMs(1, 1000, () => 0), 500);
    assert.equal(backoffMs(1, 1000, () => 1), 1000);
    assert.equal(backoffMs(3, 1000, () => 1), 4000);
    assert.equal(backoffMs(30, 1000, () => 1), 600_000);
  });
});
