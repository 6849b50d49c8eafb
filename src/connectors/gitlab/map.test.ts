import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextPageUrl } from './client.ts';
import { fileToDocument, type GlIssuable, issueToDocument, mergeRequestToDocument, projectAcl, type ProjectRef, renderNotes, wikiPageToDocument } from './map.ts';
import { verifyGitLabToken } from './webhook.ts';

const project: ProjectRef = { id: 7, path: 'acme/handbook', web_url: 'https://gitlab.example.com/acme/handbook', visibility: 'private' };
const ada = { id: 11, username: 'ada', name: 'Ada', public_email: 'Ada@Example.com' };
const bob = { id: 12, username: 'bob', name: 'Bob', public_email: null };
const issue: GlIssuable = {
  id: 100,
  iid: 4,
  project_id: 7,
  title: 'Login loops',
  description: 'It **loops**.',
  state: 'opened',
  labels: ['bug'],
  web_url: 'https://gitlab.example.com/acme/handbook/-/issues/4',
  author: ada,
  assignees: [bob],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
};

describe('gitlab mapping', () => {
  it('maps an issue: path#iid title, Markdown text, username author, project ACL, tracker metadata', () => {
    const d = issueToDocument(project, issue);
    assert.equal(d.external_id, 'issue:acme/handbook#4');
    assert.equal(d.title, 'acme/handbook#4: Login loops');
    assert.equal(d.content, 'It **loops**.');
    assert.equal(d.author, 'ada');
    assert.equal(d.document_type, 'issue');
    assert.deepEqual(d.acl, { groups: ['gitlab:project:7'] });
    assert.deepEqual([d.metadata?.state, d.metadata?.labels, d.metadata?.author_ref], ['opened', ['bug'], 'ada@example.com']);
  });

  it('limits a confidential issue to project members, its author and assignees (email, else gitlab:<id>)', () => {
    const d = issueToDocument({ ...project, visibility: 'public' }, { ...issue, confidential: true });
    assert.deepEqual(d.acl, { groups: ['gitlab:project:7'], users: ['ada@example.com', 'gitlab:12'] });
  });

  it('maps visibility: public → public, internal → the instance group, private → the project group', () => {
    assert.deepEqual(projectAcl({ id: 1, visibility: 'public' }), { public: true });
    assert.deepEqual(projectAcl({ id: 1, visibility: 'internal' }), { groups: ['gitlab:instance'] });
    assert.deepEqual(projectAcl({ id: 1, visibility: 'private' }), { groups: ['gitlab:project:1'] });
  });

  it('appends non-system notes as readable comments', () => {
    const notes = [
      { id: 1, body: 'Reproduced.', author: bob, created_at: '2026-01-03T10:00:00Z', system: false },
      { id: 2, body: 'added ~bug label', author: ada, created_at: '2026-01-03T11:00:00Z', system: true },
    ];
    assert.equal(renderNotes(notes), '— bob, 2026-01-03:\nReproduced.');
    assert.equal(issueToDocument(project, issue, notes).content, 'It **loops**.\n\nComments:\n\n— bob, 2026-01-03:\nReproduced.');
  });

  it('maps a merge request with !iid and branches', () => {
    const d = mergeRequestToDocument(project, { ...issue, iid: 9, title: 'Fix login', source_branch: 'fix', target_branch: 'main', web_url: 'u' });
    assert.equal(d.external_id, 'mr:acme/handbook!9');
    assert.equal(d.title, 'acme/handbook!9: Fix login');
    assert.equal(d.document_type, 'merge_request');
    assert.equal(d.metadata?.source_branch, 'fix');
  });

  it('builds file and wiki URLs with encoded segments', () => {
    const f = fileToDocument(project, { path: 'docs/a b#1.md', branch: 'main', blobId: 'b1', content: 'x', commit: { id: 'c1', date: '2026-01-01T00:00:00Z', author: 'Ada' } });
    assert.equal(f.url, 'https://gitlab.example.com/acme/handbook/-/blob/main/docs/a%20b%231.md');
    assert.deepEqual([f.external_id, f.author, f.updated_at, f.metadata?.blob_id], ['file:acme/handbook:docs/a b#1.md', 'Ada', '2026-01-01T00:00:00Z', 'b1']);
    const w = wikiPageToDocument(project, { slug: 'guides/on boarding', title: 'on boarding', content: 'Hi' }, 'sha');
    assert.equal(w.url, 'https://gitlab.example.com/acme/handbook/-/wikis/guides/on%20boarding');
    assert.equal(w.external_id, 'wiki:acme/handbook:guides/on boarding');
  });
});

describe('gitlab pagination', () => {
  it('follows Link rel="next" first, else X-Next-Page, and stops on an empty X-Next-Page', () => {
    const base = 'https://gitlab.example.com/api/v4/projects/7/issues?per_page=50';
    const keyset = new Headers({ link: '<https://gitlab.example.com/api/v4/projects?id_after=42&pagination=keyset>; rel="next"' });
    assert.equal(nextPageUrl(base, keyset), 'https://gitlab.example.com/api/v4/projects?id_after=42&pagination=keyset');
    assert.equal(nextPageUrl(base, new Headers({ 'x-next-page': '3' })), 'https://gitlab.example.com/api/v4/projects/7/issues?per_page=50&page=3');
    assert.equal(nextPageUrl(base, new Headers({ 'x-next-page': '', link: '<https://x/?page=1>; rel="first"' })), null);
  });
});

describe('gitlab webhook token', () => {
  it('accepts the exact secret and refuses a missing or different token', () => {
    assert.deepEqual(verifyGitLabToken('s3cret', 's3cret'), { ok: true });
    assert.equal(verifyGitLabToken(undefined, 's3cret').ok, false);
    assert.equal(verifyGitLabToken('s3cre', 's3cret').ok, false);
    assert.equal(verifyGitLabToken('s3creT', 's3cret').ok, false);
  });
});
