import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cursorOf, pipedriveSync, updatedSince } from './sync.ts';

describe('pipedrive incremental cursor', () => {
  it('updated_since is the cursor less a minute, in RFC 3339 seconds; a full sync sends none', () => {
    const p = pipedriveSync.start('incremental', { since: { deals: '2026-01-05T09:10:30.500Z' } }, {});
    assert.equal(updatedSince(p, 'deals'), '2026-01-05T09:09:30Z');
    assert.equal(updatedSince(p, 'notes'), undefined);
    assert.equal(updatedSince(pipedriveSync.start('full', null, {}), 'deals'), undefined);
  });

  it('keeps per entity the latest update read, else the previous cursor, else the start; never past the start', () => {
    const p = { ...pipedriveSync.start('incremental', { since: { persons: '2026-01-01T00:00:00.000Z' } }, {}), startedAt: '2026-02-01T00:00:00.000Z', seen: { deals: '2026-01-20T00:00:00.000Z', notes: '2026-03-01T00:00:00.000Z' } };
    assert.deepEqual(cursorOf(p, ['persons', 'deals', 'notes', 'activities']), {
      since: { persons: '2026-01-01T00:00:00.000Z', deals: '2026-01-20T00:00:00.000Z', notes: '2026-02-01T00:00:00.000Z', activities: '2026-02-01T00:00:00.000Z' },
    });
  });
});
