import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitbucketPerson, bitbucketTime, commentsText, issueToDocument, pullRequestToDocument, readmeToDocument, type RepoRef, repoAcl, repositoryToDocument } from './map.ts';
import { bbqlTime } from './sync.ts';
import { bitbucketSignature, bitbucketWebhook, verifyBitbucketDelivery } from './webhook.ts';

const repo: RepoRef = { uuid: 'c0ffee00-0000-4000-8000-000000000001', fullName: 'acme/api', isPrivate: true, hasIssues: true, mainBranch: 'main', htmlUrl: 'https://bitbucket.org/acme/api', updatedOn: '2026-01-05T09:00:00.000000+00:00' };
const ada = { display_name: 'Ada Lovelace', account_id: '557058:ada', uuid: '{u-1}' };

describe('bitbucket mapping', () => {
  it('maps a pull request: "PR #n: title", description, state and branches, comments in order as text, html link, account author, repo ACL', () => {
    const d = pullRequestToDocument(
      repo,
      { id: 12, title: 'Add retries', description: 'Retries **3** times.', state: 'MERGED', author: ada, source: { branch: { name: 'feat/retry' } }, destination: { branch: { name: 'main' } }, created_on: '2026-01-05T09:00:00.123456+00:00', updated_on: '2026-01-06T10:00:00.5+00:00', links: { html: { href: 'https://bitbucket.org/acme/api/pull-requests/12' } } },
      [
        { id: 2, content: { raw: 'Rename this.' }, user: { display_name: 'Grace' }, created_on: '2026-01-05T10:00:00+00:00', inline: { path: 'src/a.ts', to: 4 } },
        { id: 1, content: { raw: 'LGTM' }, user: { display_name: 'Grace' }, created_on: '2026-01-05T09:30:00+00:00' },
        { id: 3, content: { raw: 'gone' }, user: ada, created_on: '2026-01-05T11:00:00+00:00', deleted: true },
      ],
    );
    assert.equal(d.external_id, 'pr:c0ffee00-0000-4000-8000-000000000001:12');
    assert.equal(d.title, 'PR #12: Add retries');
    assert.equal(
      d.content,
      'Retries **3** times.\n\nState: MERGED\nBranches: feat/retry → main\nAuthor: Ada Lovelace\n\nComments:\n\nGrace (2026-01-05 09:30 UTC):\nLGTM\n\nGrace on src/a.ts:4 (2026-01-05 10:00 UTC):\nRename this.',
    );
    assert.deepEqual([d.url, d.author, d.document_type], ['https://bitbucket.org/acme/api/pull-requests/12', 'bitbucket:557058:ada', 'pull_request']);
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-05T09:00:00.123Z', '2026-01-06T10:00:00.500Z']);
    assert.deepEqual(d.acl, { groups: ['bitbucket:repo:c0ffee00-0000-4000-8000-000000000001'] });
  });

  it('maps issues, READMEs and repositories; public repositories are public', () => {
    const i = issueToDocument({ ...repo, isPrivate: false }, { id: 3, title: 'Crash', content: { raw: 'Steps' }, state: 'new', kind: 'bug', priority: 'major', reporter: { uuid: '{bot-1}' }, assignee: null, created_on: '2026-01-05T09:00:00+00:00', updated_on: '2026-01-05T09:00:00+00:00' }, []);
    assert.deepEqual([i.title, i.url, i.author, i.document_type], ['Issue #3: Crash', 'https://bitbucket.org/acme/api/issues/3', 'bitbucket:bot-1', 'issue']);
    assert.equal(i.content, 'Steps\n\nKind: bug\nState: new\nPriority: major\nAssignee: Unassigned\nReporter: Former user');
    assert.deepEqual(i.acl, { public: true });
    const r = readmeToDocument(repo, '# API\n\nHello\n');
    assert.deepEqual([r.external_id, r.title, r.url, r.content, r.document_type], ['readme:c0ffee00-0000-4000-8000-000000000001', 'acme/api: README.md', 'https://bitbucket.org/acme/api/src/main/README.md', '# API\n\nHello', 'readme']);
    const doc = repositoryToDocument({ uuid: '{c0ffee00-0000-4000-8000-000000000001}', full_name: 'acme/api', description: 'The API', is_private: false, has_issues: false, language: 'go', mainbranch: { name: 'main' } });
    assert.deepEqual([doc.external_id, doc.title, doc.url, doc.document_type], ['repository:c0ffee00-0000-4000-8000-000000000001', 'acme/api', 'https://bitbucket.org/acme/api', 'repository']);
    assert.equal(doc.content, 'The API\n\nLanguage: go\nMain branch: main\nVisibility: public');
    assert.deepEqual(repoAcl({ isPrivate: false, uuid: 'x' }), { public: true });
  });

  it('names people by account id, parses microsecond times, writes BBQL datetimes, skips empty comments', () => {
    assert.equal(bitbucketPerson({ account_id: 'a:1', uuid: '{u}' }), 'bitbucket:a:1');
    assert.equal(bitbucketPerson(null), undefined);
    assert.equal(bitbucketTime('2026-07-01T12:00:00.999999-07:00'), '2026-07-01T19:00:00.999Z');
    assert.equal(bitbucketTime('nope'), 'nope');
    assert.equal(bbqlTime('2026-01-05T09:00:00.987Z'), '2026-01-05T09:00:00+00:00');
    assert.equal(commentsText([{ id: 1, content: { raw: '  ' }, user: null, created_on: '2026-01-05T09:00:00+00:00' }]), '');
  });
});

describe('bitbucket webhook verification', () => {
  const secret = 'bitbucket-webhook-secret';
  const raw = JSON.stringify({ repository: { full_name: 'acme/api' }, pullrequest: { id: 1 } });
  it('accepts sha256=<hex HMAC-SHA256 of the raw body>, refuses missing, other-method, wrong-secret or tampered signatures', () => {
    const sig = bitbucketSignature(secret, raw);
    assert.match(sig, /^sha256=[0-9a-f]{64}$/);
    assert.deepEqual(verifyBitbucketDelivery({ signature: sig, rawBody: raw, secret }), { ok: true });
    assert.deepEqual(verifyBitbucketDelivery({ signature: sig.toUpperCase().replace('SHA256', 'sha256'), rawBody: raw, secret }), { ok: true });
    assert.equal(verifyBitbucketDelivery({ signature: undefined, rawBody: raw, secret }).ok, false);
    assert.equal(verifyBitbucketDelivery({ signature: sig.replace('sha256', 'sha1'), rawBody: raw, secret }).ok, false);
    assert.equal(verifyBitbucketDelivery({ signature: bitbucketSignature('other', raw), rawBody: raw, secret }).ok, false);
    assert.equal(verifyBitbucketDelivery({ signature: bitbucketSignature(secret, `${raw} `), rawBody: raw, secret }).ok, false);
  });
  it('names a delivery by X-Event-Key', () => {
    assert.equal(bitbucketWebhook.eventName({ headers: { 'x-event-key': 'pullrequest:fulfilled' }, payload: {} }), 'pullrequest:fulfilled');
    assert.equal(bitbucketWebhook.eventName({ headers: {}, payload: {} }), 'unknown');
  });
});
