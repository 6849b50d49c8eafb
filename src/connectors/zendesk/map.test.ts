import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { articleAcl, articleToDocument, directory, ticketToDocument, type ZendeskComment, type ZendeskTicket, zendeskPerson } from './map.ts';

const users = directory([
  { id: 1, name: 'Carl Customer', email: 'Carl@Customer.TEST' },
  { id: 2, name: 'Grace Agent', email: 'grace@acme.test' },
]);
const ticket: ZendeskTicket = {
  id: 42,
  subject: 'Printer on fire',
  description: 'It is on fire.',
  status: 'open',
  priority: 'urgent',
  type: 'incident',
  requester_id: 1,
  submitter_id: 1,
  assignee_id: 2,
  group_id: 7,
  tags: ['hardware'],
  created_at: '2026-01-05T10:00:00Z',
  updated_at: '2026-01-05T11:30:00Z',
};
const comments: ZendeskComment[] = [
  { id: 1, author_id: 1, body: 'It is on fire.', public: true, created_at: '2026-01-05T10:00:00Z' },
  { id: 2, author_id: 2, body: 'Check the warranty first.', public: false, created_at: '2026-01-05T10:30:00Z' },
  { id: 3, author_id: 2, plain_body: 'Please unplug it.', body: 'Please **unplug** it.', public: true, created_at: '2026-01-05T11:30:00Z', attachments: [{ file_name: 'manual.pdf' }] },
];

describe('zendesk mapping', () => {
  it('renders a ticket as text: status lines, then the conversation with author names, internal notes marked', () => {
    const d = ticketToDocument(ticket, comments, users, { host: 'https://acme.zendesk.com', includeInternalNotes: true });
    assert.equal(d.external_id, 'ticket:42');
    assert.equal(d.title, '#42 Printer on fire');
    assert.equal(
      d.content,
      [
        'Status: open\nPriority: urgent\nType: incident\nRequester: Carl Customer\nAssignee: Grace Agent\nTags: hardware',
        'Carl Customer — 2026-01-05 10:00 UTC\nIt is on fire.',
        'Grace Agent — 2026-01-05 10:30 UTC (internal note)\nCheck the warranty first.',
        'Grace Agent — 2026-01-05 11:30 UTC\nPlease unplug it.\nAttachments: manual.pdf',
      ].join('\n\n'),
    );
    assert.equal(d.url, 'https://acme.zendesk.com/agent/tickets/42');
    assert.equal(d.author, 'carl@customer.test');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-05T10:00:00.000Z', '2026-01-05T11:30:00.000Z']);
    assert.equal(d.document_type, 'ticket');
    assert.deepEqual(d.acl, { groups: ['zendesk:agents'] });
    assert.deepEqual([d.metadata?.internal_note_count, d.metadata?.internal_note_ids, d.metadata?.internal_notes_in_content], [1, [2], true]);
  });

  it('leaves internal notes out when told, and falls back to the description without comments', () => {
    const d = ticketToDocument(ticket, comments, users, { host: 'https://acme.zendesk.com', includeInternalNotes: false });
    assert.ok(!d.content.includes('warranty'));
    assert.equal(d.metadata?.internal_notes_in_content, false);
    const bare = ticketToDocument({ ...ticket, assignee_id: null, requester_id: 99 }, [], users, { host: 'https://acme.zendesk.com', includeInternalNotes: true });
    assert.match(bare.content, /Assignee: Unassigned/);
    assert.match(bare.content, /It is on fire\.$/);
    assert.equal(bare.author, 'zendesk:99');
  });

  it('maps articles: HTML body to text, html_url, segment ACL (none = public)', () => {
    const a = articleToDocument(
      { id: 7, title: 'Reset', body: '<h1>Reset</h1><p>Open <b>Settings</b>.</p>', html_url: 'https://acme.zendesk.com/hc/en-us/articles/7', author_id: 2, user_segment_id: null, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z' },
      users,
      'https://acme.zendesk.com',
    );
    assert.equal(a.external_id, 'article:7');
    assert.ok(!a.content.includes('<'), a.content);
    assert.match(a.content, /Open Settings\./);
    assert.equal(a.author, 'grace@acme.test');
    assert.deepEqual(a.acl, { public: true });
    assert.deepEqual(articleAcl({ user_segment_id: 55 }), { groups: ['zendesk:segment:55'] });
    assert.equal(zendeskPerson(null, users), undefined);
  });
});
