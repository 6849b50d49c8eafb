import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectCritical } from './critical.ts';

const item = (over: Partial<Parameters<typeof detectCritical>[0]> = {}) => ({
  title: 'Team lunch',
  content: 'Pizza on Friday.',
  document_type: 'page',
  metadata: {},
  ...over,
});

describe('critical detection', () => {
  it('is false without any signal', () => {
    assert.deepEqual(detectCritical(item(), 1), { is_critical: false, signals: [] });
  });

  it('fires on priority or severity metadata, labels included', () => {
    assert.deepEqual(detectCritical(item({ metadata: { priority: 'P0' } }), 0).signals, ['metadata.priority=P0']);
    assert.ok(detectCritical(item({ metadata: { severity: 'SEV-1' } }), 0).is_critical);
    assert.ok(detectCritical(item({ metadata: { labels: [{ name: 'security' }, 'ui'] } }), 0).is_critical);
    assert.equal(detectCritical(item({ metadata: { priority: 'low' } }), 0).is_critical, false);
  });

  it('reads the word of a numeric priority (Linear: priority 1, priority_label "Urgent")', () => {
    assert.deepEqual(detectCritical(item({ metadata: { priority: 1, priority_label: 'Urgent' } }), 0).signals, ['metadata.priority_label=Urgent']);
    assert.equal(detectCritical(item({ metadata: { priority: 3, priority_label: 'Medium' } }), 0).is_critical, false);
  });

  it('fires on incident-like types and critical title language', () => {
    assert.ok(detectCritical(item({ document_type: 'incident' }), 0).is_critical);
    assert.deepEqual(detectCritical(item({ title: 'Checkout outage postmortem' }), 0).signals, ['title:outage']);
    assert.ok(detectCritical(item({ title: 'Fix CVE-2026-1234 in parser' }), 0).is_critical);
  });

  it('counts body language only for urgent queries', () => {
    const body = item({ content: 'The payments API is down since 9am, data loss possible.' });
    assert.equal(detectCritical(body, 0.3).is_critical, false);
    assert.deepEqual(detectCritical(body, 0.6).signals, ['content:is down']);
  });
});
