import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphQuery, isExpiredDelta, onBase } from './client.ts';
import { bodyText, type FolderRef, formatRecipient, messageAcl, messageToDocument } from './map.ts';
import { VendorHttpError } from '../kit/index.ts';

const inbox: FolderRef = { id: 'AQMkADAw-inbox', name: 'Inbox', path: 'Inbox' };
const addr = (name: string | null, address: string | null) => ({ emailAddress: { name, address } });

describe('outlook message mapping', () => {
  it('maps a message: subject title, From/To/Cc/Date lines then the text body, webLink, sender, dates, type email', () => {
    const doc = messageToDocument(
      inbox,
      {
        id: 'AAMkAGI2=',
        subject: 'Q3 planning',
        body: { contentType: 'text', content: 'Hi Megan,\r\n\r\n\r\n\r\nThe review moved to Thursday.\r\n' },
        from: addr('Adele Vance', 'AdeleV@Contoso.com'),
        toRecipients: [addr('Megan Bowen', 'MeganB@contoso.com')],
        ccRecipients: [addr(null, 'alexw@contoso.com')],
        receivedDateTime: '2026-03-02T09:15:00Z',
        lastModifiedDateTime: '2026-03-02T10:00:00Z',
        webLink: 'https://outlook.office365.com/owa/?ItemID=AAMkAGI2%3D&exvsurl=1&viewmodel=ReadMessageItem',
        conversationId: 'AAQkAGI2conv=',
      },
      'MeganB@contoso.com',
    );
    assert.equal(doc.external_id, 'message:AQMkADAw-inbox:AAMkAGI2=');
    assert.equal(doc.title, 'Q3 planning');
    assert.equal(doc.content, 'From: Adele Vance <AdeleV@Contoso.com>\nTo: Megan Bowen <MeganB@contoso.com>\nCc: alexw@contoso.com\nDate: 2026-03-02T09:15:00Z\n\nHi Megan,\n\nThe review moved to Thursday.');
    assert.equal(doc.url, 'https://outlook.office365.com/owa/?ItemID=AAMkAGI2%3D&exvsurl=1&viewmodel=ReadMessageItem');
    assert.equal(doc.author, 'adelev@contoso.com');
    assert.equal(doc.document_type, 'email');
    assert.equal(doc.created_at, '2026-03-02T09:15:00Z');
    assert.equal(doc.updated_at, '2026-03-02T10:00:00Z');
    assert.deepEqual(doc.acl, { users: ['meganb@contoso.com', 'adelev@contoso.com', 'alexw@contoso.com'] });
    assert.deepEqual(doc.metadata, { message_id: 'AAMkAGI2=', folder: 'Inbox', folder_id: 'AQMkADAw-inbox', conversation_id: 'AAQkAGI2conv=', from_name: 'Adele Vance', to: ['meganb@contoso.com'], cc: ['alexw@contoso.com'] });
  });

  it('renders an HTML body (when the text preference was not applied) and handles a message with no subject or sender', () => {
    assert.equal(bodyText({ contentType: 'html', content: '<html><body><p>Budget <b>approved</b> &amp; signed.</p></body></html>' }), 'Budget approved & signed.');
    assert.equal(bodyText({ contentType: 'text', content: '  <b> stays  ' }), '<b> stays');
    assert.equal(bodyText(null), '');
    const doc = messageToDocument(inbox, { id: 'x', body: { contentType: 'text', content: 'just a note' } }, null);
    assert.equal(doc.title, '(no subject)');
    assert.equal(doc.content, 'just a note');
    assert.equal(doc.author, undefined);
    assert.deepEqual(doc.acl, { users: [] });
  });

  it('formats recipients and builds the ACL from owner, sender, To and Cc once each', () => {
    assert.equal(formatRecipient(addr('billing@fabrikam.com', 'billing@fabrikam.com')), 'billing@fabrikam.com');
    assert.equal(formatRecipient(addr('Only Name', null)), 'Only Name');
    assert.deepEqual(messageAcl({ id: 'm', from: addr('Me', 'me@x.com'), toRecipients: [addr(null, 'ME@x.com'), addr(null, 'b@x.com')], ccRecipients: [addr('No address', null)] }, 'Me@X.com'), {
      users: ['me@x.com', 'b@x.com'],
    });
  });

  it('keeps $ and commas literal in OData queries, rewrites foreign links onto the base, and spots expired delta state', () => {
    assert.equal(graphQuery({ $select: 'subject,body', $filter: 'receivedDateTime ge 2026-01-01T00:00:00Z', $top: undefined }), '?$select=subject,body&$filter=receivedDateTime%20ge%202026-01-01T00%3A00%3A00Z');
    assert.equal(onBase('http://127.0.0.1:9/v1.0', "https://graph.microsoft.com/v1.0/me/mailfolders('A')/messages/delta?$skiptoken=t"), "http://127.0.0.1:9/v1.0/me/mailfolders('A')/messages/delta?$skiptoken=t");
    assert.equal(isExpiredDelta(new VendorHttpError('Microsoft Graph answered HTTP 410', 410)), true);
    assert.equal(isExpiredDelta(new VendorHttpError('Microsoft Graph answered HTTP 400: {"error":{"code":"syncStateNotFound"}}', 400)), true);
    assert.equal(isExpiredDelta(new VendorHttpError('Microsoft Graph answered HTTP 400: {"error":{"code":"BadRequest"}}', 400)), false);
    assert.equal(isExpiredDelta(new VendorHttpError('Microsoft Graph answered HTTP 500', 500)), false);
  });
});
