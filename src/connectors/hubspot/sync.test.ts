import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cursorOf, hubspotSync, nextSearch, SEARCH_CAP } from './sync.ts';

const page = (over: Record<string, unknown> = {}) => ({ ...hubspotSync.start('incremental', { since: { deals: '2026-01-01T00:00:00.000Z' } }, {}), ...over });

describe('hubspot incremental search paging', () => {
  it('follows `after` while under the 10,000-result cap', () => {
    assert.deepEqual(nextSearch(page({ searchFrom: '2026-01-01T00:00:00.000Z' }), '100', null), { after: '100', searchFrom: '2026-01-01T00:00:00.000Z', listing: false });
    assert.equal(nextSearch(page(), undefined, null), null);
  });

  it('at the cap, starts a new search from the latest modification read', () => {
    const p = page({ searchFrom: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(nextSearch(p, String(SEARCH_CAP), '2026-01-03T00:00:00.000Z'), { after: null, searchFrom: '2026-01-03T00:00:00.000Z', listing: false });
  });

  it('when a whole capped search holds one instant, lists the type instead of looping', () => {
    const p = page({ searchFrom: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(nextSearch(p, String(SEARCH_CAP), '2026-01-01T00:00:00.000Z'), { after: null, searchFrom: null, listing: true });
  });

  it('the cursor keeps per type the latest modification read, else the previous one, never past the sync start', () => {
    const p = page({ startedAt: '2026-02-01T00:00:00.000Z', seen: { companies: '2026-01-20T00:00:00.000Z', notes: '2026-03-01T00:00:00.000Z' } });
    assert.deepEqual(cursorOf(p, ['companies', 'deals', 'tickets', 'notes']), {
      since: { companies: '2026-01-20T00:00:00.000Z', deals: '2026-01-01T00:00:00.000Z', tickets: '2026-02-01T00:00:00.000Z', notes: '2026-02-01T00:00:00.000Z' },
    });
  });
});
