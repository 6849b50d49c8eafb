import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, JOB_BACKOFF_CAP_MS } from './index.ts';

describe('job backoff (backoffMs with the worker cap)', () => {
  const job = { baseMs: 1000, capMs: JOB_BACKOFF_CAP_MS };
  it('doubles per attempt with jitter in [cap/2, cap] and caps at 10 minutes', () => {
    assert.equal(backoffMs(1, job, () => 0), 500);
    assert.equal(backoffMs(1, job, () => 1), 1000);
    assert.equal(backoffMs(3, job, () => 1), 4000);
    assert.equal(backoffMs(30, job, () => 1), 600_000);
  });
});
