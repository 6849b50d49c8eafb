import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, formatProgress } from './progress.ts';

describe('progress', () => {
  it('shows count, rate and ETA', () => {
    assert.equal(formatProgress('ingest', 500, 1000, 2000), 'ingest: 500/1000 50% (250/s, ETA 2s)');
    assert.equal(formatProgress('embed', 10, null, 4000), 'embed: 10 (2.5/s)');
    assert.equal(formatProgress('x', 5, 5, 1000), 'x: 5/5 100% (5.0/s, ETA 0s)');
  });
  it('formats durations', () => {
    assert.equal(formatDuration(59_000), '59s');
    assert.equal(formatDuration(61_000), '1m01s');
    assert.equal(formatDuration(3_720_000), '1h02m');
  });
});
