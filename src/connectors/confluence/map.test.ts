import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextPath } from './client.ts';
import { commentToDocument, contentToDocument, type MapContext, restrictionAcl, spaceAcl } from './map.ts';
import { mentionedUsers, storageToText } from './render.ts';
import { confluenceSettings } from './schemas.ts';
import { changesCql } from './sync.ts';

const m: MapContext = {
  site: 'https://acme.atlassian.net',
  space: { id: '1', key: 'ENG', name: 'Engineering' },
  acl: { groups: ['confluence:space:1'] },
  users: new Map([['u1', { accountId: 'u1', displayName: 'Ada Lovelace', email: 'Ada@Acme.test' }]]),
};

describe('confluence storage format → text', () => {
  it('renders code macros, links, mentions, tasks, dates and drops macro parameters', () => {
    const text = storageToText(
      '<h2>Steps</h2><p>Ping <ac:link><ri:user ri:account-id="u1"/></ac:link>, see <ac:link><ri:page ri:content-title="Deploy &amp; rollback"/></ac:link>.</p>' +
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sql</ac:parameter><ac:plain-text-body><![CDATA[SELECT 1 < 2;]]></ac:plain-text-body></ac:structured-macro>' +
        '<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Backup</ac:task-body></ac:task><ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Migrate</ac:task-body></ac:task></ac:task-list>' +
        '<p>Due <time datetime="2026-03-01" /> <ac:emoticon ac:name="smile"/></p><ac:image><ri:attachment ri:filename="plan.png"/></ac:image>',
      new Map([['u1', 'Ada Lovelace']]),
    );
    assert.equal(text, '## Steps\n\nPing @Ada Lovelace, see Deploy & rollback.\n\nSELECT 1 < 2;\n\n[x] Backup\n\n[ ] Migrate\n\nDue 2026-03-01\n\n[plan.png]');
  });

  it('leaves out mentions of users it could not look up, and lists mentioned account ids', () => {
    const s = '<p>Hi <ac:link><ri:user ri:account-id="zz"/></ac:link> there</p>';
    assert.equal(storageToText(s), 'Hi there');
    assert.deepEqual(mentionedUsers(s), ['zz']);
  });
});

describe('confluence ACLs', () => {
  it('a space: read principals, its own group, public when anonymous may read', () => {
    const acl = spaceAcl('7', [
      { principal: { type: 'group', id: 'g1' }, operation: { key: 'read', targetType: 'space' } },
      { principal: { type: 'user', id: 'u9' }, operation: { key: 'read', targetType: 'space' } },
      { principal: { type: 'group', id: 'g2' }, operation: { key: 'delete', targetType: 'page' } },
      { operation: { key: 'read', targetType: 'space' }, anonymousAccess: true },
    ]);
    assert.deepEqual(acl, { public: true, users: ['confluence:u9'], groups: ['confluence:g1', 'confluence:space:7'] });
  });

  it('a read restriction names its users (emails when shown) and groups; none → null', () => {
    assert.equal(restrictionAcl({ restrictions: { user: { results: [] }, group: { results: [] } } }), null);
    assert.equal(restrictionAcl(null), null);
    assert.deepEqual(restrictionAcl({ restrictions: { user: { results: [{ accountId: 'a', email: 'X@Y.test' }, { accountId: 'b', email: '' }] }, group: { results: [{ id: 'g', name: 'sec' }] } } }), {
      users: ['confluence:b', 'x@y.test'],
      groups: ['confluence:g'],
    });
  });
});

describe('confluence documents', () => {
  it('a page: site link, author name and email, attachment names after the body', () => {
    const d = contentToDocument(
      'page',
      { id: '42', title: 'Runbook', authorId: 'u1', createdAt: '2026-01-01T00:00:00Z', version: { number: 3, createdAt: '2026-01-02T00:00:00Z', authorId: 'u1' }, body: { storage: { value: '<p>Body</p>' } }, _links: { webui: '/spaces/ENG/pages/42/Runbook' } },
      m,
      [{ id: 'a1', title: 'plan.pdf', mediaType: 'application/pdf', fileSize: 10 }],
    );
    assert.equal(d.external_id, 'page:42');
    assert.equal(d.url, 'https://acme.atlassian.net/wiki/spaces/ENG/pages/42/Runbook');
    assert.equal(d.content, 'Body\n\nAttachments: plan.pdf');
    assert.equal(d.author, 'Ada Lovelace');
    assert.equal(d.updated_at, '2026-01-02T00:00:00Z');
    assert.equal((d.metadata as Record<string, unknown>).author_email, 'ada@acme.test');
  });

  it('an inline comment quotes its selection and links to the page when it has no link of its own', () => {
    const d = commentToDocument('inline', { id: '9', body: { storage: { value: '<p>Typo</p>' } }, properties: { 'inline-original-selection': 'teh' } }, { kind: 'page', id: '42', title: 'Runbook', url: 'https://acme.atlassian.net/wiki/x' }, m);
    assert.equal(d.content, '> teh\n\nTypo');
    assert.equal(d.url, 'https://acme.atlassian.net/wiki/x?focusedCommentId=9');
    assert.equal(d.document_type, 'comment');
  });
});

describe('confluence requests', () => {
  it('next links: v2 relative to the API root, v1 relative to /wiki, absolute ones kept on the base', () => {
    assert.equal(nextPath('/wiki/api/v2/spaces?cursor=abc', 'v2', 'https://acme.atlassian.net'), '/wiki/api/v2/spaces?cursor=abc');
    assert.equal(nextPath('/rest/api/search?cql=x&cursor=c', 'v1', 'https://acme.atlassian.net'), '/wiki/rest/api/search?cql=x&cursor=c');
    assert.equal(nextPath('https://evil.test/ex/confluence/c1/wiki/api/v2/pages?cursor=z', 'v2', 'https://api.atlassian.com/ex/confluence/c1'), '/wiki/api/v2/pages?cursor=z');
    assert.equal(nextPath(undefined, 'v2', 'https://acme.atlassian.net'), null);
  });

  it('CQL asks relative to now() (no time zone), with a margin, the enabled types and the spaces', () => {
    const s = confluenceSettings.parse({ spaces: ['ENG', 'OPS'], include_blog_posts: false });
    const cql = changesCql(s, new Date('2026-01-01T10:00:00Z'), new Date('2026-01-01T10:30:00Z'));
    assert.equal(cql, 'type in (page,comment) and lastmodified >= now("-40m") and space in ("ENG","OPS") order by lastmodified asc');
  });
});
