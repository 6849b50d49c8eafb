import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeAcls, projectAcl, projectToDocument, taskToDocument } from './map.ts';
import { cursorOf } from './sync.ts';

describe('asana mapping', () => {
  it('renders a task as text: header, notes, then comments only (system stories left out)', () => {
    const d = taskToDocument(
      {
        gid: '7',
        name: ' Ship it ',
        notes: 'Before Friday.',
        completed: true,
        completed_at: '2026-01-06T10:00:00.000Z',
        created_at: '2026-01-05T09:00:00.000Z',
        modified_at: '2026-01-06T10:00:00.000Z',
        assignee: { gid: '2', name: 'Grace' },
        created_by: { gid: '1', email: 'Ada@Acme.test' },
        memberships: [{ project: { gid: '9', name: 'Launch' }, section: { gid: 's', name: 'Doing' } }],
        tags: [{ gid: 't', name: 'urgent' }],
        resource_subtype: 'milestone',
      },
      [
        { gid: 'a', type: 'system', text: 'marked this task complete', created_by: { gid: '2', name: 'Grace' }, created_at: '2026-01-06T10:00:00Z' },
        { gid: 'b', type: 'comment', text: 'Done, thanks!', created_by: { gid: '2', name: 'Grace' }, created_at: '2026-01-06T10:01:00Z' },
      ],
      { public: true },
    );
    assert.equal(d.title, 'Ship it');
    assert.equal(d.content, 'Project: Launch / Doing\nStatus: completed 2026-01-06 10:00 UTC\nAssignee: Grace\nTags: urgent\n\nBefore Friday.\n\nGrace — 2026-01-06 10:01 UTC\nDone, thanks!');
    assert.equal(d.author, 'ada@acme.test');
    assert.equal(d.document_type, 'milestone');
    assert.equal(d.url, 'https://app.asana.com/0/0/7');
    assert.equal(d.metadata?.comment_count, 1);
  });

  it('project privacy → ACL (privacy_setting, else the deprecated public flag)', () => {
    assert.deepEqual(projectAcl({ gid: '1', privacy_setting: 'public_to_workspace' }), { public: true });
    assert.deepEqual(projectAcl({ gid: '1', privacy_setting: 'private_to_team', team: { gid: '5' } }), { groups: ['asana:project:1', 'asana:team:5'] });
    assert.deepEqual(projectAcl({ gid: '1', privacy_setting: 'private', team: { gid: '5' } }), { groups: ['asana:project:1'] });
    assert.deepEqual(projectAcl({ gid: '1', public: false }), { groups: ['asana:project:1'] });
    assert.deepEqual(mergeAcls([{ groups: ['b'] }, { groups: ['a', 'b'] }]), { groups: ['a', 'b'] });
    assert.deepEqual(mergeAcls([{ groups: ['b'] }, { public: true }]), { public: true });
    assert.equal(projectToDocument({ gid: '3', name: 'P', notes: '' }).content, 'Project: P');
  });

  it('the next cursor is a minute before the newest modified_at, never before the previous one', () => {
    assert.deepEqual(cursorOf({ since: null, high: '2026-01-05T10:00:00.000Z' }), { modified_since: '2026-01-05T09:59:00.000Z' });
    assert.deepEqual(cursorOf({ since: '2026-01-05T10:00:00.000Z', high: '2026-01-05T10:00:30.000Z' }), { modified_since: '2026-01-05T10:00:00.000Z' });
    assert.deepEqual(cursorOf({ since: '2026-01-05T10:00:00.000Z', high: null }), { modified_since: '2026-01-05T10:00:00.000Z' });
  });
});
