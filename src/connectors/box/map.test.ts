import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { streamPosition } from './client.ts';
import { collaborators, documentType, extensionOf, fileAcl, fileToDocument, inScope } from './map.ts';
import { type BoxItem, boxSettings } from './schemas.ts';

const item = (extra: Partial<BoxItem> = {}): BoxItem => ({
  type: 'file',
  id: '42',
  name: 'Plan.PDF',
  size: 1000,
  item_status: 'active',
  created_at: '2025-03-03T09:00:00-08:00',
  modified_at: '2025-03-04T09:00:00-08:00',
  created_by: { type: 'user', id: '7', name: 'Bob', login: 'Bob@Example.com' },
  owned_by: { type: 'user', id: '8', name: 'Ada', login: 'Ada@Example.com' },
  path_collection: { total_count: 2, entries: [{ type: 'folder', id: '0', name: 'All Files' }, { type: 'folder', id: '100', name: 'Plans' }] },
  ...extra,
});

describe('box mapping', () => {
  it('maps a file to a document: title, url, author, dates, type, path and ACL', () => {
    const d = fileToDocument(item(), 'Line one\r\nLine two\r\n', 'ada@example.com');
    assert.equal(d.external_id, 'file:42');
    assert.equal(d.title, 'Plan.PDF');
    assert.equal(d.content, 'Line one\nLine two');
    assert.equal(d.url, 'https://app.box.com/file/42');
    assert.equal(d.author, 'bob@example.com');
    assert.equal(d.document_type, 'pdf');
    assert.equal(d.created_at, '2025-03-03T09:00:00-08:00');
    assert.equal(d.updated_at, '2025-03-04T09:00:00-08:00');
    assert.equal(d.metadata?.path, 'All Files/Plans');
    assert.deepEqual(d.acl, { users: ['ada@example.com'], groups: ['box:folder:100'] });
  });

  it('shared links: open → public, company → the owner’s domain, collaborators → nothing more', () => {
    assert.equal(fileAcl(item({ shared_link: { access: 'open' } }), null).public, true);
    assert.deepEqual(fileAcl(item({ shared_link: { access: 'company' } }), null).domain, ['example.com']);
    assert.deepEqual(fileAcl(item({ shared_link: { access: 'collaborators' } }), null), { users: ['ada@example.com'], groups: ['box:folder:100'] });
  });

  it('document types and extensions', () => {
    assert.equal(extensionOf({ name: 'a.Tar.MD', extension: null }), 'md');
    assert.equal(extensionOf({ name: 'x', extension: 'DOCX' }), 'docx');
    assert.deepEqual(['docx', 'md', 'html', 'csv', 'pdf', 'png'].map(documentType), ['document', 'document', 'web_page', 'spreadsheet', 'pdf', 'file']);
  });

  it('scope: active, a wanted extension, not too large, under a configured folder', () => {
    const all = boxSettings.parse({});
    assert.equal(inScope(item(), all), true);
    assert.equal(inScope(item({ item_status: 'trashed' }), all), false);
    assert.equal(inScope(item({ name: 'logo.png' }), all), false);
    assert.equal(inScope(item({ size: 30 * 1024 * 1024 }), all), false);
    assert.equal(inScope(item({ type: 'web_link' }), all), false);
    assert.equal(inScope(item(), boxSettings.parse({ folder_ids: ['100'] })), true);
    assert.equal(inScope(item(), boxSettings.parse({ folder_ids: ['200'] })), false);
    assert.equal(inScope(item(), boxSettings.parse({ extensions: ['md'] })), false);
  });

  it('folder members: accepted user collaborations by email; pending ones and groups are left out', () => {
    const r = collaborators([
      { id: '1', status: 'accepted', accessible_by: { type: 'user', id: '7', login: 'Bob@Example.com', name: 'Bob' } },
      { id: '2', status: 'pending', accessible_by: { type: 'user', id: '9', login: 'eve@example.com' } },
      { id: '3', status: 'accepted', accessible_by: { type: 'group', id: '5', name: 'Team' } },
      { id: '4', status: 'accepted', accessible_by: { type: 'user', id: '10', login: 'AppUser_1234' } },
    ]);
    assert.deepEqual(r.members, ['bob@example.com', 'box:10']);
    assert.deepEqual(r.accounts.map((a) => a.account_id), ['box:7', 'box:10']);
  });

  it('reads next_stream_position without losing digits, as a number or a string', () => {
    assert.equal(streamPosition('{"chunk_size":0,"next_stream_position":1152922976252290886,"entries":[]}'), '1152922976252290886');
    assert.equal(streamPosition('{"next_stream_position": "1152922976252290886"}'), '1152922976252290886');
    assert.equal(streamPosition('{"entries":[]}'), null);
  });
});
