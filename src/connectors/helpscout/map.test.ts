import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { articleAcl, conversationToDocument, type HelpscoutConversation } from './map.ts';

const conversation: HelpscoutConversation = {
  id: 7,
  number: 42,
  status: 'active',
  subject: 'Printer on fire',
  mailboxId: 3,
  primaryCustomer: { id: 9, type: 'customer', first: 'Carl', last: 'Customer', email: 'Carl@Customer.TEST' },
  createdAt: '2026-01-05T09:00:00Z',
  userUpdatedAt: '2026-01-05T10:00:00Z',
  tags: [{ tag: 'hardware' }],
  _embedded: {
    threads: [
      { id: 3, type: 'note', body: '<p>Check the warranty.</p>', createdBy: { id: 1, type: 'user', first: 'Grace', last: 'Agent' }, createdAt: '2026-01-05T09:30:00Z' },
      { id: 4, type: 'lineitem', createdBy: { id: 1, type: 'user' }, createdAt: '2026-01-05T09:40:00Z' },
      { id: 1, type: 'customer', body: '<p>It is <b>on fire</b>.</p>', createdBy: { id: 9, type: 'customer', first: 'Carl' }, createdAt: '2026-01-05T09:00:00Z' },
    ],
  },
};

describe('helpscout mapping', () => {
  it('renders threads oldest first, notes marked or left out, line items skipped', () => {
    const d = conversationToDocument(conversation, { includeNotes: true, mailboxName: 'Support' });
    assert.equal(d.title, '#42 Printer on fire');
    assert.equal(d.url, 'https://secure.helpscout.net/conversation/7/42');
    assert.equal(d.author, 'carl@customer.test');
    assert.equal(
      d.content,
      ['Status: active\nMailbox: Support\nAssignee: Unassigned\nCustomer: Carl Customer\nTags: hardware', 'Carl — 2026-01-05 09:00 UTC\nIt is on fire.', 'Grace Agent — 2026-01-05 09:30 UTC (internal note)\nCheck the warranty.'].join('\n\n'),
    );
    assert.deepEqual(d.acl, { groups: ['helpscout:mailbox:3'] });
    const without = conversationToDocument(conversation, { includeNotes: false });
    assert.ok(!without.content.includes('warranty'));
    assert.equal((without.metadata as Record<string, unknown>).note_count, 1);
  });

  it('Docs articles: public collections are public, private ones users-only', () => {
    assert.deepEqual(articleAcl({ id: 'c', visibility: 'public' }), { public: true });
    assert.deepEqual(articleAcl({ id: 'c', visibility: 'private' }), { groups: ['helpscout:users'] });
  });
});
