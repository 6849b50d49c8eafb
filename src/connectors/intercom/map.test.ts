import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { intercomKind } from './index.ts';
import { articleAcl, articleToDocument, authorName, conversationToDocument, htmlText, type IntercomConversation, intercomPerson, unixIso } from './map.ts';
import { intercomSettings } from './schemas.ts';
import { type IntercomPage, searchQuery } from './sync.ts';

const T = 1767603600; // 2026-01-05T09:00:00Z
const conv: IntercomConversation = {
  id: '1042',
  title: null,
  created_at: T,
  updated_at: T + 600,
  state: 'open',
  source: { type: 'conversation', subject: '', body: '<p>Hi, my <b>export</b> is empty.</p><p>Help?</p>', author: { type: 'user', id: 'c1', email: 'Alan@Customer.TEST' } },
  contacts: { contacts: [{ id: 'c1' }] },
  tags: { tags: [{ name: 'billing' }] },
  conversation_parts: {
    total_count: 4,
    conversation_parts: [
      { id: '3', part_type: 'note', body: '<p>VIP customer</p>', created_at: T + 300, author: { type: 'admin', id: 'a2', name: 'Grace Ops' } },
      { id: '1', part_type: 'assignment', body: null, created_at: T + 60, author: { type: 'admin', id: 'a1', name: 'Ada Support' } },
      { id: '2', part_type: 'comment', body: '<p>Which format?</p>', created_at: T + 120, author: { type: 'admin', id: 'a1', name: 'Ada Support' } },
      { id: '4', part_type: 'comment', body: 'CSV, thanks', created_at: T + 600, author: { type: 'user', id: 'c1' } },
    ],
  },
};

describe('intercom mapping', () => {
  it('maps a conversation: contact and first message in the title, parts in order with author names, text not HTML, inbox URL, teammates ACL', () => {
    const d = conversationToDocument(conv, { appId: 'abc12def', region: 'us', contactNames: new Map([['c1', 'Alan Customer']]), includeNotes: true });
    assert.equal(d.external_id, 'conversation:1042');
    assert.equal(d.title, 'Conversation with Alan Customer: Hi, my export is empty. Help?');
    assert.equal(
      d.content,
      [
        'Alan Customer (2026-01-05 09:00 UTC):\nHi, my export is empty.\n\nHelp?',
        'Ada Support (2026-01-05 09:02 UTC):\nWhich format?',
        'Grace Ops [note] (2026-01-05 09:05 UTC):\nVIP customer',
        'Alan Customer (2026-01-05 09:10 UTC):\nCSV, thanks',
      ].join('\n\n'),
    );
    assert.equal(d.url, 'https://app.intercom.com/a/inbox/abc12def/inbox/conversation/1042');
    assert.equal(d.author, 'alan@customer.test');
    assert.deepEqual([d.created_at, d.updated_at, d.document_type], ['2026-01-05T09:00:00.000Z', '2026-01-05T09:10:00.000Z', 'conversation']);
    assert.deepEqual(d.acl, { groups: ['intercom:teammates'] });
    assert.deepEqual((d.metadata as Record<string, unknown>).tags, ['billing']);
  });

  it('prefers the title, leaves notes out when asked, and links the EU web app', () => {
    const d = conversationToDocument({ ...conv, title: 'Empty export' }, { appId: 'x1', region: 'eu', contactNames: new Map(), includeNotes: false });
    assert.equal(d.title, 'Conversation with Alan@Customer.TEST: Empty export', 'no name anywhere: the source author email');
    assert.ok(!d.content.includes('VIP customer'));
    assert.equal(d.url, 'https://app.eu.intercom.com/a/inbox/x1/inbox/conversation/1042');
  });

  it('maps articles: published → public with its Help Center URL, draft → teammates with the app URL', () => {
    const a = { id: '7', title: 'Reset', description: 'How to', body: '<h2>Steps</h2><ol><li>Open it</li></ol>', author_id: 99, state: 'published', created_at: T, updated_at: T, url: 'https://help.acme.test/en/articles/7-reset' };
    const d = articleToDocument(a, { appId: 'abc', region: 'us' });
    assert.equal(d.title, 'Reset');
    assert.match(d.content, /^How to\n\n## Steps/);
    assert.ok(!d.content.includes('<'));
    assert.deepEqual([d.url, d.author, d.document_type], ['https://help.acme.test/en/articles/7-reset', 'intercom:99', 'article']);
    assert.deepEqual(d.acl, { public: true });
    const draft = articleToDocument({ ...a, state: 'draft', url: null }, { appId: 'abc', region: 'au' });
    assert.equal(draft.url, 'https://app.au.intercom.com/a/apps/abc/articles/articles/7/show');
    assert.deepEqual(articleAcl({ state: 'draft' }), { groups: ['intercom:teammates'] });
  });

  it('names people and converts times', () => {
    assert.equal(intercomPerson({ type: 'user', id: 'c1', email: 'X@Y.z' }), 'x@y.z');
    assert.equal(intercomPerson({ type: 'admin', id: 5 }), 'intercom:5');
    assert.equal(authorName({ type: 'bot', id: '1' }, new Map()), 'Operator');
    assert.equal(authorName({ type: 'lead', id: 'l1', email: 'l@x.test' }, new Map()), 'l@x.test');
    assert.equal(unixIso(0), '1970-01-01T00:00:00.000Z');
    assert.equal(htmlText('plain text'), 'plain text');
    assert.equal(htmlText(null), '');
  });

  it('searches everything on a full sync, from one second before the cursor on an incremental one', () => {
    const p: IntercomPage = { mode: 'incremental', phase: 'conversations', startedAt: 0, appId: null, since: T, articlePage: 1, startingAfter: null, maxUpdated: null };
    assert.deepEqual(searchQuery(p), { field: 'updated_at', operator: '>', value: T - 1 });
    assert.deepEqual(searchQuery({ ...p, mode: 'full' }), { field: 'updated_at', operator: '>', value: 0 });
  });

  it('picks the regional API host', () => {
    const base = (region: string) => intercomKind.apiBaseUrl?.(intercomSettings.parse({ region }));
    assert.deepEqual(['us', 'eu', 'au'].map(base), ['https://api.intercom.io', 'https://api.eu.intercom.io', 'https://api.au.intercom.io']);
    assert.equal(intercomSettings.safeParse({ region: 'ca' }).success, false);
  });
});
