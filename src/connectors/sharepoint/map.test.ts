import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onBase } from './client.ts';
import { documentType, type DriveRef, itemAcl, itemPath, itemToDocument, userRef } from './map.ts';
import type { DriveItem } from './schemas.ts';
import { sitePathFromUrl } from './sync.ts';

const library: DriveRef = {
  id: 'b!lib',
  name: 'Documents',
  webUrl: 'https://contoso.sharepoint.com/sites/hr/Shared%20Documents',
  driveType: 'documentLibrary',
  siteId: 'contoso.sharepoint.com,a,b',
  siteName: 'HR',
  owner: null,
};
const onedrive: DriveRef = { ...library, id: 'b!me', driveType: 'business', siteId: null, siteName: null, owner: 'ada@contoso.com', webUrl: null };
const item: DriveItem = {
  id: 'I1',
  name: 'Leave policy.docx',
  webUrl: 'https://contoso.sharepoint.com/sites/hr/_layouts/15/Doc.aspx?sourcedoc=%7BI1%7D',
  size: 1200,
  createdDateTime: '2026-01-02T03:04:05Z',
  lastModifiedDateTime: '2026-02-03T04:05:06Z',
  createdBy: { user: { id: 'u1', displayName: 'Ada', email: 'Ada@Contoso.com' } },
  lastModifiedBy: { user: { id: 'u2', displayName: 'Bob' } },
  parentReference: { id: 'F1', driveId: 'b!lib' },
  file: { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
};

describe('sharepoint mapping', () => {
  it('maps a library file: name, text, URL, lower-cased author, dates, type, site ACL and location metadata', () => {
    const d = itemToDocument(item, library, 'Twenty days of leave.', '/Policies/Leave policy.docx');
    assert.equal(d.external_id, 'item:b!lib:I1');
    assert.equal(d.title, 'Leave policy.docx');
    assert.equal(d.content, 'Twenty days of leave.');
    assert.equal(d.url, item.webUrl);
    assert.equal(d.author, 'ada@contoso.com');
    assert.equal(d.document_type, 'document');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-02T03:04:05Z', '2026-02-03T04:05:06Z']);
    assert.deepEqual(d.acl, { groups: ['sharepoint:site:contoso.sharepoint.com,a,b'] });
    assert.equal(d.metadata?.path, '/Policies/Leave policy.docx');
    assert.equal(d.metadata?.last_modified_by, 'sharepoint:u2', 'no email: the Graph user id');
    assert.equal(d.metadata?.site_name, 'HR');
  });

  it('names users by email, else by Graph id; types by extension', () => {
    assert.equal(userRef({ user: { id: 'x', email: ' A@B.COM ' } }), 'a@b.com');
    assert.equal(userRef({ user: { id: 'x' } }), 'sharepoint:x');
    assert.equal(userRef({ application: { id: 'app' } }), undefined);
    assert.deepEqual(['a.PDF', 'b.md', 'c.html', 'd.csv', 'e.bin'].map(documentType), ['pdf', 'document', 'web_page', 'spreadsheet', 'file']);
  });

  it('ACL: a OneDrive file is its owner’s; sharing with the organization or by anonymous link makes it public', () => {
    assert.deepEqual(itemAcl(onedrive, item), { users: ['ada@contoso.com'] });
    assert.deepEqual(itemAcl(library, { ...item, shared: { scope: 'organization' } }), { public: true, groups: ['sharepoint:site:contoso.sharepoint.com,a,b'] });
    assert.deepEqual(itemAcl(onedrive, { ...item, shared: { scope: 'anonymous' } }), { public: true, users: ['ada@contoso.com'] });
    assert.deepEqual(itemAcl(onedrive, { ...item, shared: { scope: 'users' } }), { users: ['ada@contoso.com'] });
  });

  it('paths: from folders seen in the feed, else Graph’s parent path, else the URL under the drive, else null', () => {
    assert.equal(itemPath(item, library, { F1: '/Policies' }), '/Policies/Leave policy.docx');
    assert.equal(itemPath({ ...item, parentReference: { id: 'F9', path: '/drives/b!lib/root:/A%20B' } }, library, {}), '/A B/Leave policy.docx');
    assert.equal(itemPath({ ...item, parentReference: { id: 'F9' }, webUrl: `${library.webUrl}/Team%20notes/x.md` }, library, {}), '/Team notes/x.md');
    assert.equal(itemPath({ ...item, parentReference: { id: 'F9' } }, library, {}), null);
  });

  it('resolves site URLs to Graph site paths and keeps Graph links on the configured host', () => {
    assert.equal(sitePathFromUrl('https://contoso.sharepoint.com/sites/marketing'), '/sites/contoso.sharepoint.com:/sites/marketing');
    assert.equal(sitePathFromUrl('https://contoso.sharepoint.com'), '/sites/contoso.sharepoint.com');
    assert.equal(sitePathFromUrl('https://contoso.sharepoint.com/teams/Sales%20EU'), '/sites/contoso.sharepoint.com:/teams/Sales%20EU');
    const link = 'https://graph.microsoft.com/v1.0/drives/b!x/root/delta?token=abc';
    assert.equal(onBase('https://graph.microsoft.com/v1.0', link), link);
    assert.equal(onBase('http://proxy.internal/graph/v1.0', link), 'http://proxy.internal/graph/v1.0/drives/b!x/root/delta?token=abc');
  });
});
