import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeEncodedWords, messageAcl, messageBody, messageToDocument, parseAddresses } from './map.ts';
import type { GmailMessage, MessagePart } from './schemas.ts';

const b64 = (s: string, enc: BufferEncoding = 'utf8') => Buffer.from(s, enc).toString('base64url');
const text = (mimeType: string, s: string, extra: Partial<MessagePart> = {}): MessagePart => ({ mimeType, filename: '', headers: [{ name: 'Content-Type', value: `${mimeType}; charset=UTF-8` }], body: { size: s.length, data: b64(s) }, ...extra });

describe('gmail map', () => {
  it('parses address headers: display names, quoted commas, groups, comments, bare addresses', () => {
    assert.deepEqual(parseAddresses('"Lovelace, Ada" <Ada@Atrium.test>, bob@x.test, Team: c@x.test, d@x.test;, e@x.test (Eve)'), [
      { name: 'Lovelace, Ada', email: 'ada@atrium.test' },
      { name: null, email: 'bob@x.test' },
      { name: null, email: 'c@x.test' },
      { name: null, email: 'd@x.test' },
      { name: 'Eve', email: 'e@x.test' },
    ]);
    assert.deepEqual(parseAddresses('undisclosed-recipients:;'), []);
    assert.deepEqual(parseAddresses(undefined), []);
  });

  it('decodes RFC 2047 encoded words (B and Q, adjacent words joined)', () => {
    assert.equal(decodeEncodedWords('=?UTF-8?B?UmVjZWlwdCDigJMgRmVicnVhcnk=?='), 'Receipt – February');
    assert.equal(decodeEncodedWords('=?ISO-8859-1?Q?Caf=E9_menu?= =?ISO-8859-1?Q?_du_jour?='), 'Café menu du jour');
    assert.equal(decodeEncodedWords('plain'), 'plain');
  });

  it('prefers text/plain parts, falls back to HTML through the parser, skips attachments, honours the charset', () => {
    const alt: MessagePart = { mimeType: 'multipart/alternative', parts: [text('text/plain', 'Plain body'), text('text/html', '<p>HTML body</p>')] };
    assert.equal(messageBody(alt), 'Plain body');
    const html: MessagePart = { mimeType: 'multipart/mixed', parts: [text('text/html', '<p>Only <b>HTML</b></p><script>x()</script>'), { mimeType: 'text/plain', filename: 'notes.txt', body: { attachmentId: 'a1', size: 3 } }] };
    assert.equal(messageBody(html), 'Only HTML');
    const latin: MessagePart = { mimeType: 'text/plain', headers: [{ name: 'Content-Type', value: 'text/plain; charset="ISO-8859-1"' }], body: { data: b64('Café à huit heures', 'latin1') } };
    assert.equal(messageBody(latin), 'Café à huit heures');
    const attached: MessagePart = { mimeType: 'multipart/mixed', parts: [text('text/plain', 'See attached'), text('text/plain', 'attached text', { filename: 'a.txt' })] };
    assert.equal(messageBody(attached), 'See attached');
  });

  it('maps a message: subject, header lines, body, thread url, sender, internalDate, recipients as ACL', () => {
    const msg: GmailMessage = {
      id: 'm1',
      threadId: 't1',
      labelIds: ['INBOX', 'Label_7'],
      internalDate: String(Date.UTC(2025, 1, 3, 9, 0)),
      payload: {
        mimeType: 'multipart/mixed',
        headers: [
          { name: 'Subject', value: 'Atlas   layout' },
          { name: 'From', value: 'Ada <Ada@Atrium.test>' },
          { name: 'To', value: 'grace@atrium.test' },
          { name: 'Cc', value: 'Linus <linus@partner.test>' },
          { name: 'Bcc', value: 'boss@atrium.test' },
          { name: 'Date', value: 'Mon, 3 Feb 2025 09:00:00 +0000' },
          { name: 'Message-ID', value: '<m1@mail.test>' },
        ],
        parts: [text('text/plain', 'Line one\r\n\r\n\r\n\r\nLine two'), { mimeType: 'application/pdf', filename: 'spec.pdf', body: { attachmentId: 'x', size: 10 } }],
      },
    };
    const d = messageToDocument(msg, 'owner@atrium.test');
    assert.equal(d.external_id, 'message:m1');
    assert.equal(d.title, 'Atlas layout');
    assert.equal(
      d.content,
      'From: Ada <Ada@Atrium.test>\nTo: grace@atrium.test\nCc: Linus <linus@partner.test>\nDate: Mon, 3 Feb 2025 09:00:00 +0000\nAttachments: spec.pdf\n\nLine one\n\nLine two',
    );
    assert.equal(d.url, 'https://mail.google.com/mail/u/0/#all/t1');
    assert.equal(d.author, 'ada@atrium.test');
    assert.equal(d.document_type, 'email');
    assert.equal(d.created_at, '2025-02-03T09:00:00.000Z');
    assert.deepEqual(d.acl, { users: ['ada@atrium.test', 'boss@atrium.test', 'grace@atrium.test', 'linus@partner.test', 'owner@atrium.test'] });
    assert.deepEqual(d.metadata, { gmail_message_id: 'm1', thread_id: 't1', label_ids: ['INBOX', 'Label_7'], message_id: '<m1@mail.test>', from_name: 'Ada', attachments: ['spec.pdf'] });
    assert.equal(messageToDocument({ ...msg, payload: { mimeType: 'text/plain', headers: [] } }, null).title, '(no subject)');
    assert.deepEqual(messageAcl({ ...msg, payload: { headers: [] } }, 'Owner@Atrium.test'), { users: ['owner@atrium.test'] });
  });
});
