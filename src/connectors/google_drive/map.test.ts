import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentPlan, documentType, fileAcl, fileToDocument } from './map.ts';
import type { DriveFile, DriveSettings } from './schemas.ts';
import { inScope, listQuery } from './sync.ts';

const doc: DriveFile = {
  id: '1AbC',
  name: 'Atlas design',
  mimeType: 'application/vnd.google-apps.document',
  webViewLink: 'https://docs.google.com/document/d/1AbC/edit',
  createdTime: '2025-01-06T09:00:00.000Z',
  modifiedTime: '2025-01-07T10:00:00.000Z',
  parents: ['fld'],
  owners: [{ emailAddress: 'Ada@Example.com', displayName: 'Ada' }],
  permissions: [
    { type: 'user', role: 'owner', emailAddress: 'Ada@Example.com' },
    { type: 'user', role: 'reader', emailAddress: 'gone@example.com', deleted: true },
    { type: 'group', role: 'reader', emailAddress: 'Eng@Example.com' },
    { type: 'domain', role: 'commenter', domain: 'Example.com' },
  ],
};

const settings: DriveSettings = { include_my_drive: true, include_shared_drives: true, max_file_size_mb: 20 };

describe('google_drive map', () => {
  it('maps a Google Doc: title, text with LF line ends, url, lower-cased owner, times, type, metadata', () => {
    const d = fileToDocument(doc, '\r\nAtlas design\r\n\r\nColumnar shards.\r\n', null);
    assert.equal(d.external_id, 'file:1AbC');
    assert.equal(d.title, 'Atlas design');
    assert.equal(d.content, 'Atlas design\n\nColumnar shards.');
    assert.equal(d.url, doc.webViewLink);
    assert.equal(d.author, 'ada@example.com');
    assert.equal(d.document_type, 'document');
    assert.equal(d.created_at, doc.createdTime);
    assert.equal(d.updated_at, doc.modifiedTime);
    assert.deepEqual(d.metadata, { drive_file_id: '1AbC', mime_type: doc.mimeType, drive_id: null, parents: ['fld'] });
  });

  it('permissions become the shared ACL: users, groups, domains, anyone = public; deleted ones are dropped', () => {
    assert.deepEqual(fileAcl(doc, 'me@example.com'), { domain: ['example.com'], users: ['ada@example.com'], groups: ['google_drive:eng@example.com'] });
    assert.deepEqual(fileAcl({ ...doc, permissions: [{ type: 'anyone', role: 'reader' }] }, null), { public: true });
  });

  it('without visible permissions: owners and the connected account (My Drive), the drive group (shared drive)', () => {
    assert.deepEqual(fileAcl({ ...doc, permissions: undefined }, 'Me@Example.com'), { users: ['ada@example.com', 'me@example.com'] });
    assert.deepEqual(fileAcl({ ...doc, owners: undefined, permissions: undefined, driveId: '0AEng' }, 'me@example.com'), { groups: ['google_drive:0AEng'] });
  });

  it('document types and how content is read', () => {
    assert.equal(documentType('application/vnd.google-apps.spreadsheet'), 'spreadsheet');
    assert.equal(documentType('application/vnd.google-apps.presentation'), 'presentation');
    assert.equal(documentType('application/pdf'), 'pdf');
    assert.equal(documentType('application/vnd.openxmlformats-officedocument.wordprocessingml.document'), 'document');
    assert.equal(documentType('text/markdown'), 'file');
    assert.deepEqual(contentPlan('application/vnd.google-apps.spreadsheet'), { via: 'export', mimeType: 'text/csv', parseAs: 'export.csv' });
    assert.deepEqual(contentPlan('application/vnd.google-apps.presentation'), { via: 'export', mimeType: 'text/plain', parseAs: 'export.txt' });
    assert.deepEqual(contentPlan('application/pdf'), { via: 'download', parseAs: 'file.pdf' });
    assert.equal(contentPlan('image/png'), null);
  });

  it('scope: type, size, trash, then folders or drives', () => {
    assert.equal(inScope(doc, settings, null), true);
    assert.equal(inScope({ ...doc, trashed: true }, settings, null), false);
    assert.equal(inScope({ ...doc, mimeType: 'image/png' }, settings, null), false);
    assert.equal(inScope({ ...doc, size: String(21 * 1024 * 1024) }, settings, null), false);
    assert.equal(inScope(doc, { ...settings, include_my_drive: false }, null), false);
    assert.equal(inScope({ ...doc, driveId: 'A' }, { ...settings, drive_ids: ['B'] }, null), false);
    assert.equal(inScope({ ...doc, driveId: 'B' }, { ...settings, drive_ids: ['B'] }, null), true);
    assert.equal(inScope(doc, settings, new Set(['other'])), false);
    assert.equal(inScope(doc, settings, new Set(['fld'])), true);
  });

  it('listing queries in the Drive query language, with quotes escaped', () => {
    const only = { ...settings, mime_types: ['application/pdf' as const] };
    assert.equal(listQuery({ kind: 'my_drive' }, only), "trashed = false and (mimeType = 'application/pdf')");
    assert.equal(
      listQuery({ kind: 'folder', folderId: "it's", driveId: null }, only),
      "'it\\'s' in parents and trashed = false and (mimeType = 'application/pdf' or mimeType = 'application/vnd.google-apps.folder')",
    );
  });
});
