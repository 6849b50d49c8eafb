import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { articleToDocument, folderAcl, type FreshdeskTicket, ticketToDocument } from './map.ts';

const agents = { '7': { name: 'Grace Agent', email: 'Grace@Acme.TEST' } };
const ticket: FreshdeskTicket = {
  id: 5,
  subject: 'Printer on fire',
  description_text: 'It is on fire.',
  status: 2,
  priority: 4,
  source: 1,
  type: 'Incident',
  requester_id: 3,
  responder_id: 7,
  tags: ['hardware'],
  requester: { id: 3, name: 'Carl Customer', email: 'Carl@Customer.TEST' },
  created_at: '2026-01-05T10:00:00Z',
  updated_at: '2026-01-05T11:00:00Z',
};

describe('freshdesk mapping', () => {
  it('renders a ticket as text: status lines, the description, then replies and marked private notes by name', () => {
    const d = ticketToDocument(
      ticket,
      [
        { id: 1, user_id: 7, body_text: 'Unplug it.', private: false, created_at: '2026-01-05T10:30:00Z' },
        { id: 2, user_id: 7, body_text: 'Warranty expired.', private: true, created_at: '2026-01-05T10:40:00Z' },
        { id: 3, user_id: 3, body: '<p>Done, <b>thanks</b></p>', private: false, created_at: '2026-01-05T11:00:00Z' },
      ],
      agents,
      { host: 'https://acme.freshdesk.com', includePrivateNotes: true },
    );
    assert.equal(d.title, '#5 Printer on fire');
    assert.equal(
      d.content,
      [
        'Status: Open\nPriority: Urgent\nType: Incident\nSource: Email\nRequester: Carl Customer\nAgent: Grace Agent\nTags: hardware',
        'Carl Customer — 2026-01-05 10:00 UTC\nIt is on fire.',
        'Grace Agent — 2026-01-05 10:30 UTC\nUnplug it.',
        'Grace Agent — 2026-01-05 10:40 UTC (private note)\nWarranty expired.',
        'Carl Customer — 2026-01-05 11:00 UTC\nDone, thanks',
      ].join('\n\n'),
    );
    assert.equal(d.url, 'https://acme.freshdesk.com/a/tickets/5');
    assert.equal(d.author, 'carl@customer.test');
    assert.deepEqual(d.acl, { groups: ['freshdesk:agents'] });
    assert.deepEqual([d.metadata?.private_note_count, d.metadata?.private_notes_in_content], [1, true]);
    const quiet = ticketToDocument(ticket, [{ id: 2, user_id: 7, body_text: 'Warranty expired.', private: true, created_at: '2026-01-05T10:40:00Z' }], agents, { host: 'https://acme.freshdesk.com', includePrivateNotes: false });
    assert.ok(!quiet.content.includes('Warranty'));
  });

  it('maps folder visibility to ACL and articles to text with the agent email as author', () => {
    assert.deepEqual(folderAcl({ visibility: 1, company_ids: [] }), { public: true });
    assert.deepEqual(folderAcl({ visibility: 2, company_ids: [] }), { public: true });
    assert.deepEqual(folderAcl({ visibility: 3, company_ids: [] }), { groups: ['freshdesk:agents'] });
    assert.deepEqual(folderAcl({ visibility: 4, company_ids: [9] }), { groups: ['freshdesk:agents', 'freshdesk:company:9'] });
    const a = articleToDocument(
      { id: 8, title: 'Reset', description: '<p>Open <b>Settings</b>.</p>', status: 2, agent_id: 7, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z' },
      { id: 1, name: 'FAQ', category: 'General', visibility: 1, company_ids: [] },
      agents,
      'https://acme.freshdesk.com',
    );
    assert.equal(a.content, 'Open Settings.');
    assert.equal(a.url, 'https://acme.freshdesk.com/support/solutions/articles/8');
    assert.equal(a.author, 'grace@acme.test');
    assert.deepEqual(a.acl, { public: true });
  });
});
