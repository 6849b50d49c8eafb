import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boardAcl, boardToDocument, cardToDocument, createdAtOf, type TrelloBoard } from './map.ts';
import { activeSince, cursorOf } from './sync.ts';

const board: TrelloBoard = { id: '65a0b0c00000000000000001', name: 'Ops', desc: '', prefs: { permissionLevel: 'private' }, memberships: [{ idMember: 'm1', memberType: 'admin' }] };

describe('trello mapping', () => {
  it('renders a card as text: header, description, checklists in position order, comments oldest first', () => {
    const d = cardToDocument(
      {
        id: '65a0b0c00000000000000002',
        name: 'Rotate keys',
        desc: 'Quarterly.',
        idList: 'l1',
        due: '2026-02-01T10:00:00.000Z',
        dueComplete: true,
        labels: [{ name: '', color: 'green' }],
        members: [{ id: 'm1', fullName: null, username: 'ada' }],
        checklists: [
          { id: 'c2', name: 'Later', pos: 2, checkItems: [] },
          { id: 'c1', name: 'Steps', pos: 1, checkItems: [{ name: 'b', state: 'incomplete', pos: 2 }, { name: 'a', state: 'complete', pos: 1 }] },
        ],
      },
      {
        board,
        lists: new Map([['l1', 'Doing']]),
        actions: [
          { id: 'a2', type: 'commentCard', date: '2026-01-02T00:00:00Z', memberCreator: { id: 'm1', fullName: 'Ada' }, data: { text: 'second' } },
          { id: 'a1', type: 'commentCard', date: '2026-01-01T00:00:00Z', idMemberCreator: 'm9', data: { text: 'first' } },
          { id: 'a0', type: 'createCard', date: '2025-12-31T00:00:00Z', idMemberCreator: 'm1', data: {} },
        ],
        creatorId: 'm1',
        includeChecklists: true,
      },
    );
    assert.equal(
      d.content,
      'Board: Ops\nList: Doing\nLabels: green\nMembers: ada\nDue: 2026-02-01 10:00 UTC (complete)\n\nQuarterly.\n\nChecklist: Steps\n[x] a\n[ ] b\n\nChecklist: Later\n\nmember m9 — 2026-01-01 00:00 UTC\nfirst\n\nAda — 2026-01-02 00:00 UTC\nsecond',
    );
    assert.equal(d.author, 'trello:m1');
    assert.equal(d.url, 'https://trello.com/c/65a0b0c00000000000000002');
    assert.deepEqual([d.metadata?.checklist_items, d.metadata?.checklist_items_complete, d.metadata?.comment_count], [2, 1, 2]);
    assert.deepEqual(d.acl, { groups: ['trello:board:65a0b0c00000000000000001'] });
  });

  it('board visibility → ACL; the ObjectId dates the creation', () => {
    assert.deepEqual(boardAcl({ id: 'b', prefs: { permissionLevel: 'public' } }), { public: true });
    assert.deepEqual(boardAcl({ id: 'b', prefs: { permissionLevel: 'org' }, idOrganization: 'o' }), { groups: ['trello:board:b', 'trello:org:o'] });
    assert.deepEqual(boardAcl({ id: 'b', prefs: { permissionLevel: 'enterprise' }, idEnterprise: 'e' }), { groups: ['trello:board:b', 'trello:enterprise:e'] });
    assert.deepEqual(boardAcl({ id: 'b' }), { groups: ['trello:board:b'] });
    assert.equal(createdAtOf('65a0b0c00000000000000001'), new Date(0x65a0b0c0 * 1000).toISOString());
    assert.equal(createdAtOf('not-an-id'), undefined);
    const doc = boardToDocument(board, [{ id: 'l1', name: 'Doing' }], new Map([['l1', 1]]));
    assert.equal(doc.content, 'Board: Ops\nVisibility: private\n\nLists:\n- Doing (1 card)');
    assert.equal(doc.author, 'trello:m1');
  });

  it('activity window: a minute of overlap, unknown activity counts as changed', () => {
    assert.deepEqual(cursorOf({ since: null, high: '2026-01-05T10:00:00.000Z' }), { since: '2026-01-05T09:59:00.000Z' });
    assert.deepEqual(cursorOf({ since: '2026-01-05T10:00:00.000Z', high: null }), { since: '2026-01-05T10:00:00.000Z' });
    assert.equal(activeSince(null, '2026-01-05T10:00:00Z'), true);
    assert.equal(activeSince('2026-01-05T09:00:00Z', '2026-01-05T10:00:00Z'), false);
    assert.equal(activeSince('2026-01-05T09:00:00Z', null), true);
  });
});
