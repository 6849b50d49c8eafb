import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversationAcl, conversationToDocument, type FrontConversation } from './map.ts';

const grace = { id: 'tea_2', email: 'Grace@Acme.TEST', first_name: 'Grace', last_name: 'Agent' };
const conversation: FrontConversation = { id: 'cnv_1', subject: 'Printer on fire', status: 'assigned', assignee: grace, tags: [{ name: 'hardware' }], created_at: 1767603600.5, updated_at: 1767607200.25 };

describe('front mapping', () => {
  it('renders messages and comments in time order, comments marked internal, drafts left out', () => {
    const d = conversationToDocument(
      conversation,
      {
        messages: [
          { id: 'msg_2', created_at: 1767605400, author: grace, recipients: [], text: 'Unplug it.', is_inbound: false, attachments: [] },
          { id: 'msg_1', created_at: 1767603600, recipients: [{ name: 'Carl', handle: 'Carl@Customer.TEST', role: 'from' }], body: '<p>It is <b>on fire</b>.</p>', is_inbound: true, attachments: [{ filename: 'photo.jpg' }] },
          { id: 'msg_3', created_at: 1767606000, author: grace, recipients: [], text: 'Half-written', draft_mode: 'private', attachments: [] },
        ],
        comments: [{ id: 'com_1', author: grace, body: 'Check the warranty.', posted_at: 1767604500, attachments: [] }],
        inboxes: [{ id: 'inb_1', name: 'Support' }],
      },
      { includeComments: true },
    );
    assert.equal(d.external_id, 'conversation:cnv_1');
    assert.equal(d.url, 'https://app.frontapp.com/open/cnv_1');
    assert.equal(d.author, 'carl@customer.test');
    assert.equal(
      d.content,
      [
        'Status: assigned\nAssignee: Grace Agent\nTags: hardware\nInboxes: Support',
        'Carl — 2026-01-05 09:00 UTC\nIt is on fire.\nAttachments: photo.jpg',
        'Grace Agent — 2026-01-05 09:15 UTC (internal comment)\nCheck the warranty.',
        'Grace Agent — 2026-01-05 09:30 UTC (reply)\nUnplug it.',
      ].join('\n\n'),
    );
    assert.equal(d.created_at, '2026-01-05T09:00:00.500Z');
    assert.equal(d.updated_at, '2026-01-05T10:00:00.250Z');
    assert.deepEqual(d.acl, { groups: ['front:inbox:inb_1'] });
  });

  it('a conversation in no inbox is its assignee\'s, else nobody\'s', () => {
    assert.deepEqual(conversationAcl(conversation, []), { users: ['grace@acme.test'] });
    assert.deepEqual(conversationAcl({ ...conversation, assignee: null }, []), {});
  });
});
