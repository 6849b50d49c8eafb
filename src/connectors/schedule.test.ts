import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dueSync, nextFullAt, nextIncrementalAt, scheduleFor } from './schedule.ts';

const defaults = { intervalMinutes: 15, fullAtUtc: '02:00' };

describe('sync schedule', () => {
  it('defaults to every 15 minutes and nightly at 02:00 UTC; settings override', () => {
    assert.deepEqual(scheduleFor({}, defaults), defaults);
    assert.deepEqual(scheduleFor({ sync_interval_minutes: 60, full_sync_at_utc: '23:30' }, defaults), { intervalMinutes: 60, fullAtUtc: '23:30' });
    assert.deepEqual(scheduleFor({ sync_interval_minutes: -1, full_sync_at_utc: '25:00' }, defaults), defaults);
  });

  it('computes the next run times from now', () => {
    const now = new Date('2026-03-01T10:07:00Z');
    assert.equal(nextIncrementalAt(now, defaults).toISOString(), '2026-03-01T10:22:00.000Z');
    assert.equal(nextFullAt(now, defaults).toISOString(), '2026-03-02T02:00:00.000Z');
    assert.equal(nextFullAt(new Date('2026-03-01T01:59:00Z'), defaults).toISOString(), '2026-03-01T02:00:00.000Z');
    assert.equal(nextFullAt(new Date('2026-03-01T02:00:00Z'), defaults).toISOString(), '2026-03-02T02:00:00.000Z');
  });

  it('a due full sync wins over an incremental one', () => {
    const now = new Date('2026-03-01T10:00:00Z');
    assert.equal(dueSync(now, { incremental: new Date('2026-03-01T09:00:00Z'), full: new Date('2026-03-01T09:30:00Z') }), 'full');
    assert.equal(dueSync(now, { incremental: new Date('2026-03-01T09:00:00Z'), full: new Date('2026-03-02T02:00:00Z') }), 'incremental');
    assert.equal(dueSync(now, { incremental: new Date('2026-03-01T10:15:00Z'), full: null }), null);
  });
});
