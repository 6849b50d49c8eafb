import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveChanges, storedPathMap } from './changes.ts';
import { documentType, externalId, fileAcl, fileToDocument, inScope, webUrl } from './map.ts';
import { dropboxSettings, type Entry, type FileEntry } from './schemas.ts';

const settings = dropboxSettings.parse({});
const file = (path: string, id: string, extra: Partial<FileEntry> = {}): FileEntry => ({
  '.tag': 'file',
  id: `id:${id}`,
  name: path.slice(path.lastIndexOf('/') + 1),
  path_lower: path.toLowerCase(),
  path_display: path,
  client_modified: '2025-01-02T03:04:05Z',
  server_modified: '2025-01-03T03:04:05Z',
  rev: 'a1c10ce0dd78',
  size: 10,
  is_downloadable: true,
  ...extra,
});
const deleted = (path: string): Entry => ({ '.tag': 'deleted', name: path.slice(path.lastIndexOf('/') + 1), path_lower: path.toLowerCase(), path_display: path });
const folder = (path: string, id: string): Entry => ({ '.tag': 'folder', id: `id:${id}`, name: path.slice(path.lastIndexOf('/') + 1), path_lower: path.toLowerCase(), path_display: path });

describe('dropbox mapping', () => {
  it('maps a file to a document: title, url, author, dates, type, ACL with the shared folder', () => {
    const f = file('/Team Wiki/Run book.HTML', 'abc', { sharing_info: { read_only: true, parent_shared_folder_id: '845', modified_by: 'dbid:G' } });
    const d = fileToDocument(f, 'Run book\r\nPage on-call.\r\n', 'Ada@Atrium.test');
    assert.equal(d.external_id, 'file:abc');
    assert.equal(d.title, 'Run book.HTML');
    assert.equal(d.content, 'Run book\nPage on-call.');
    assert.equal(d.url, 'https://www.dropbox.com/home/Team%20Wiki/Run%20book.HTML');
    assert.equal(d.author, 'ada@atrium.test');
    assert.equal(d.document_type, 'web_page');
    assert.equal(d.created_at, '2025-01-02T03:04:05Z');
    assert.equal(d.updated_at, '2025-01-03T03:04:05Z');
    assert.deepEqual(d.acl, { users: ['ada@atrium.test'], groups: ['dropbox:shared_folder:845'] });
    assert.equal(d.metadata?.modified_by, 'dbid:G');
    assert.deepEqual(fileAcl(file('/a.md', 'x'), 'b@c.d'), { users: ['b@c.d'] });
  });

  it('types by extension; scope by extension, size and downloadability', () => {
    assert.deepEqual(['a.pdf', 'a.docx', 'a.md', 'a.csv', 'a.htm', 'a.bin'].map(documentType), ['pdf', 'document', 'document', 'spreadsheet', 'web_page', 'file']);
    assert.equal(inScope(file('/a.pdf', '1'), settings), true);
    assert.equal(inScope(file('/a.png', '1'), settings), false);
    assert.equal(inScope(file('/a.pdf', '1', { size: 21 * 1024 * 1024 }), settings), false);
    assert.equal(inScope(file('/a.paper', '1', { is_downloadable: false }), settings), false);
    assert.equal(inScope(file('/a.md', '1'), dropboxSettings.parse({ file_extensions: ['PDF'] })), false);
    assert.equal(externalId('id:Zz_9'), 'file:Zz_9');
    assert.equal(webUrl('/a b/c#d.md'), 'https://www.dropbox.com/home/a%20b/c%23d.md');
  });

  it('settings: path normalised, extensions with or without a dot, unknown keys refused', () => {
    assert.equal(dropboxSettings.parse({ path: '/Projects/' }).path, '/Projects');
    assert.equal(dropboxSettings.parse({ path: '/' }).path, '');
    assert.deepEqual(dropboxSettings.parse({ file_extensions: ['md', '.PDF'] }).file_extensions, ['.md', '.pdf']);
    assert.equal(dropboxSettings.safeParse({ path: 'Projects' }).success, false);
    assert.equal(dropboxSettings.safeParse({ path: '/a//b' }).success, false);
    assert.equal(dropboxSettings.safeParse({ file_extensions: ['.exe'] }).success, false);
    assert.equal(dropboxSettings.safeParse({ cursor: 'x' }).success, false);
  });
});

describe('dropbox change resolution', () => {
  const stored = storedPathMap([
    { external_id: 'file:a', metadata: { path_lower: '/docs/a.md' } },
    { external_id: 'file:b', metadata: { path_lower: '/docs/sub/b.md' } },
    { external_id: 'file:c', metadata: { path_lower: '/c.md' } },
    { external_id: 'other:x', metadata: { path_lower: '/x' } },
  ]);

  it('a deleted folder removes every stored file under it; unrelated paths with the same prefix stay', () => {
    const r = resolveChanges([deleted('/Docs'), file('/docs-old/z.md', 'z')], stored, settings);
    assert.deepEqual(r.deleted.sort(), ['file:a', 'file:b']);
    assert.deepEqual(r.upsert.map((f) => f.id), ['id:z']);
  });

  it('a move (deleted at the old path, same id at the new one) keeps the document, in either order', () => {
    for (const entries of [[deleted('/c.md'), file('/docs/c.md', 'c')], [file('/docs/c.md', 'c'), deleted('/c.md')]]) {
      const r = resolveChanges(entries, stored, settings);
      assert.deepEqual(r.deleted, []);
      assert.deepEqual(r.upsert.map((f) => f.path_lower), ['/docs/c.md']);
    }
  });

  it('a file replacing a folder removes its children; a folder replacing a file removes the file; out of scope → deleted', () => {
    assert.deepEqual(resolveChanges([file('/docs/sub', 'n')], stored, settings).deleted, ['file:b']);
    assert.deepEqual(resolveChanges([folder('/c.md', 'f')], stored, settings).deleted, ['file:c']);
    const r = resolveChanges([file('/docs/a.md', 'a', { size: 999 * 1024 * 1024 }), file('/new.png', 'p')], stored, settings);
    assert.deepEqual(r, { upsert: [], deleted: ['file:a'] });
  });

  it('a file added then deleted within the page is neither read nor deleted', () => {
    assert.deepEqual(resolveChanges([file('/t.md', 't'), deleted('/t.md')], stored, settings), { upsert: [], deleted: [] });
  });
});
