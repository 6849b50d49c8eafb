import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphQuery } from './client.ts';
import { bodyText, type ChannelRef, firstWords, isContentMessage, messageToDocument } from './map.ts';

const general: ChannelRef = { teamId: 'team-1', teamName: 'Contoso Engineering', id: '19:abc@thread.tacv2', name: 'General', membershipType: 'standard' };
const incidents: ChannelRef = { ...general, id: '19:def@thread.tacv2', name: 'Incidents', membershipType: 'private' };

describe('teams message mapping', () => {
  it('renders HTML bodies to text with mentions as @Name; plain text stays as is', () => {
    assert.equal(bodyText({ contentType: 'html', content: '<div><p>Hello <at id="0">Jane Smith</at> &amp; team</p><ul><li>one</li></ul></div>' }), 'Hello @Jane Smith & team\n\n * one');
    assert.equal(bodyText({ contentType: 'text', content: '  a <b> stays  ' }), 'a <b> stays');
    assert.equal(bodyText(null), '');
  });

  it('maps a root message: channel + subject title, text and attachment names, webUrl, author id, team ACL', () => {
    const doc = messageToDocument(general, {
      id: '1616965872395',
      messageType: 'message',
      createdDateTime: '2021-03-28T21:11:12.395Z',
      lastModifiedDateTime: '2021-03-29T08:00:00.000Z',
      subject: 'Rollout',
      webUrl: 'https://teams.microsoft.com/l/message/x/1616965872395',
      body: { contentType: 'html', content: '<p>Canary on Monday, <at id="0">Jane</at> owns it.</p>' },
      from: { user: { id: 'u-1', displayName: 'Robin Kline' } },
      attachments: [{ id: 'a', contentType: 'reference', name: 'runbook.docx' }, { id: 'q', contentType: 'messageReference', name: null }],
      mentions: [{ id: 0, mentionText: 'Jane' }],
    });
    assert.equal(doc.external_id, 'message:19:abc@thread.tacv2:1616965872395');
    assert.equal(doc.title, 'General — Rollout');
    assert.equal(doc.content, 'Rollout\n\nCanary on Monday, @Jane owns it.\n\nAttachments: runbook.docx');
    assert.equal(doc.url, 'https://teams.microsoft.com/l/message/x/1616965872395');
    assert.equal(doc.author, 'teams:u-1');
    assert.equal(doc.document_type, 'message');
    assert.equal(doc.created_at, '2021-03-28T21:11:12.395Z');
    assert.equal(doc.updated_at, '2021-03-29T08:00:00.000Z');
    assert.deepEqual(doc.acl, { groups: ['teams:team:team-1'] });
    assert.deepEqual(doc.metadata?.attachments, ['runbook.docx']);
    assert.equal(doc.metadata?.author_name, 'Robin Kline');
  });

  it('maps a reply in a private channel: first words as title, channel ACL, email author when given', () => {
    const long = 'Failover complete and latency is back under three hundred milliseconds for every region we serve today';
    const doc = messageToDocument(incidents, { id: '2', replyToId: '1', body: { contentType: 'text', content: long }, from: { user: { id: 'u-2', email: 'Omar@Contoso.com' } } }, '1');
    assert.equal(doc.external_id, 'reply:19:def@thread.tacv2:1:2');
    assert.equal(doc.document_type, 'reply');
    assert.equal(doc.title, `Incidents — ${firstWords(long)}`);
    assert.ok(doc.title.endsWith('…') && doc.title.length < 100);
    assert.equal(doc.author, 'omar@contoso.com');
    assert.deepEqual(doc.acl, { groups: ['teams:channel:19:def@thread.tacv2'] });
    assert.equal(doc.metadata?.reply_to_id, '1');
  });

  it('skips system events, deleted and empty messages', () => {
    assert.equal(isContentMessage({ id: '1', messageType: 'systemEventMessage', body: { contentType: 'html', content: '<systemEventMessage/>' } }), false);
    assert.equal(isContentMessage({ id: '1', messageType: 'message', deletedDateTime: '2024-01-01T00:00:00Z', body: { contentType: 'html', content: '' } }), false);
    assert.equal(isContentMessage({ id: '1', messageType: 'message', body: { contentType: 'html', content: '<p> </p>' } }), false);
    assert.equal(isContentMessage({ id: '1', messageType: 'message', body: { contentType: 'html', content: '' }, attachments: [{ name: 'deck.pptx' }] }), true);
  });

  it('writes OData query options with a literal $', () => {
    assert.equal(graphQuery({ $top: 50, $expand: 'replies', $filter: 'lastModifiedDateTime gt 2024-01-01T00:00:00.000Z', $skip: undefined }), '?$top=50&$expand=replies&$filter=lastModifiedDateTime%20gt%202024-01-01T00%3A00%3A00.000Z');
  });
});
