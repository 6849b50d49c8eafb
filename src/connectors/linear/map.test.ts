import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cycleToDocument, issueToDocument, type LinIssue, laterIso } from './map.ts';

const team = { id: 't1', key: 'ENG', name: 'Engineering' };
const issue: LinIssue = {
  id: 'uuid-1',
  identifier: 'ENG-7',
  title: 'Login loops',
  description: null,
  url: 'https://linear.app/acme/issue/ENG-7/login-loops',
  priority: 2,
  priorityLabel: 'High',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  archivedAt: null,
  creator: { name: 'Ada Lovelace', displayName: 'ada' },
  state: { name: 'In Progress', type: 'started' },
  team,
  labels: { nodes: [{ name: 'Bug' }] },
};

describe('linear mapping', () => {
  it('maps an issue with Linear id, identifier title, creator name, team acl and tracker metadata', () => {
    const d = issueToDocument(issue);
    assert.equal(d.external_id, 'issue:uuid-1');
    assert.equal(d.title, 'ENG-7: Login loops');
    assert.equal(d.content, '');
    assert.equal(d.author, 'Ada Lovelace');
    assert.deepEqual(d.acl, { groups: [`linear:team:${issue.team.id}`] });
    assert.deepEqual([d.metadata?.state, d.metadata?.priority_label, d.metadata?.labels], ['In Progress', 'High', ['Bug']]);
    assert.equal('archived_at' in (d.metadata ?? {}), false);
    assert.equal(issueToDocument({ ...issue, archivedAt: '2026-01-03T00:00:00.000Z' }).metadata?.archived_at, '2026-01-03T00:00:00.000Z');
  });

  it('builds the cycle page URL from the workspace', () => {
    const c = cycleToDocument({ id: 'c1', number: 4, startsAt: '2026-01-05T00:00:00Z', endsAt: '2026-01-19T00:00:00Z', createdAt: 'x', updatedAt: 'y', team }, 'https://linear.app/acme/');
    assert.equal(c.url, 'https://linear.app/acme/team/ENG/cycle/4');
    assert.equal(c.title, 'ENG Cycle 4');
  });

  it('keeps the later timestamp', () => {
    assert.equal(laterIso(null, '2026-01-01T00:00:00Z'), '2026-01-01T00:00:00Z');
    assert.equal(laterIso('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z'), '2026-01-02T00:00:00Z');
    assert.equal(laterIso('2026-01-02T00:00:00Z', null), '2026-01-02T00:00:00Z');
  });
});
