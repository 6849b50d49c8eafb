import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeGitHub, type FakeRepo, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

async function externalIds(t: TestApp, connectorId: string): Promise<string[]> {
  const r = await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY external_id', [connectorId]);
  return r.rows.map((x) => x.external_id);
}

async function fileDoc(t: TestApp, connectorId: string, externalId: string) {
  const r = await t.db.query<{ author: string | null; updated_at: Date | string | null; content: string }>(
    'SELECT author, updated_at, content FROM documents WHERE source_node = $1 AND external_id = $2',
    [connectorId, externalId],
  );
  const row = r.rows[0];
  assert.ok(row, externalId);
  return { author: row.author, updated_at: row.updated_at === null ? null : new Date(row.updated_at).toISOString(), content: row.content };
}

describe('github connector against the fake GitHub', () => {
  let t: TestApp;
  let gh: FakeGitHub;
  let id: string;
  let worker: Worker;
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/api', 60), seededRepo('acme/web', 3, { private: true })] });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await gh.close();
  });

  const sync = async (full: boolean) => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=${full}`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual({ status: r.json().status, sync_type: r.json().sync_type }, { status: 'syncing', sync_type: full ? 'full' : 'incremental' });
    const again = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync`, headers: t.admin });
    assert.equal(again.statusCode, 409, 'a second sync while one runs is refused');
    await worker.drain();
    return (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
  };

  it('validates the token, then a full sync stores repos, issues, PRs, files and discussions', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'github', display_name: 'GH', credentials: { access_token: gh.token }, settings: { file_extensions: ['.md'] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().oauth_url, null);
    id = created.json().connector_id;
    assert.match(id, /^github-/);
    await worker.drain();
    const validated = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(validated.status, 'connected');
    assert.equal(JSON.stringify(validated).includes(gh.token), false, 'credentials are never returned');
    const row = await t.db.query<{ credentials_enc: string }>('SELECT credentials_enc FROM connectors WHERE id = $1', [id]);
    assert.equal(row.rows[0]?.credentials_enc.includes(gh.token), false, 'credentials are encrypted at rest');

    const after = await sync(true);
    assert.equal(after.status, 'idle');
    const ids = await externalIds(t, id);
    // 2 repos + 63 issues/PRs + 2 .md files per repo + 1 discussion per repo
    assert.equal(ids.length, 2 + 63 + 4 + 2);
    for (const want of ['pr:acme/api#5', 'issue:acme/api#59', 'file:acme/web:docs/guide.md', 'discussion:acme/api#1', 'repo:acme/web']) {
      assert.ok(ids.includes(want), want);
    }
    assert.equal(ids.includes('file:acme/api:src/index.ts'), false, 'extensions filter');
    // The admin key reads as a service key: the private repository's documents count only with the audited bypass.
    assert.equal(after.document_count, ids.filter((x) => !x.includes('acme/web')).length);
    const all = await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}?bypass_acl=true`, headers: t.admin });
    assert.equal(all.json().document_count, ids.length);
    const run = after.sync_runs[0];
    assert.equal(run.status, 'completed');
    assert.equal(run.added, ids.length);
    assert.ok(gh.requests.some((r) => r.includes('/issues?') && r.includes('page=2')), 'issue pages followed');
    const doc = await t.db.query<Record<string, unknown>>("SELECT * FROM documents WHERE source_node = $1 AND external_id = 'issue:acme/api#1'", [id]);
    assert.equal(doc.rows[0]?.author, 'user1');
    assert.equal(doc.rows[0]?.url, 'https://github.com/acme/api/issues/1');
    // File contents come as the blob's raw bytes, not base64 inside JSON (which broke on files of ~6 MB and more).
    assert.equal(gh.rawBlobs, 4);
    const file = await t.db.query<{ content: string }>("SELECT content FROM documents WHERE source_node = $1 AND external_id = 'file:acme/web:docs/guide.md'", [id]);
    const want = gh.repos.find((r) => r.full_name === 'acme/web')?.files.get('docs/guide.md') ?? '';
    assert.ok(want.length > 0 && (file.rows[0]?.content ?? '').includes(want.trim().split('\n').at(-1) ?? '\u0000'), file.rows[0]?.content);
  });

  it('an incremental sync sends the cursor and fetches only what changed', async () => {
    const repo = gh.repos[0];
    assert.ok(repo);
    repo.issues.push({ number: 61, title: 'New issue', body: 'fresh', state: 'open', user: 'amy', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
    const first = repo.issues[0];
    assert.ok(first);
    first.body = 'edited body';
    first.updated_at = '2026-01-02T00:00:00Z';
    gh.requests.length = 0;
    const after = await sync(false);
    assert.equal(after.status, 'idle');
    const run = after.sync_runs[0];
    assert.equal(run.sync_type, 'incremental');
    assert.equal(run.added, 1);
    assert.equal(run.updated, 1);
    assert.ok(gh.requests.some((r) => r.includes('/issues?') && r.includes('since=2025-02-01T00%3A00%3A00Z')), 'the stored cursor is sent as since');
    assert.ok(!gh.requests.some((r) => r.includes('/git/blobs/')), 'unchanged trees are not re-read');
  });

  it('a full sync removes documents that vanished at the source', async () => {
    const repo = gh.repos[0];
    assert.ok(repo);
    repo.issues = repo.issues.filter((i) => i.number !== 2);
    repo.files.delete('docs/guide.md');
    const after = await sync(true);
    const run = after.sync_runs[0];
    assert.equal(run.deleted, 2);
    const ids = await externalIds(t, id);
    assert.ok(!ids.includes('issue:acme/api#2'));
    assert.ok(!ids.includes('file:acme/api:docs/guide.md'));
  });

  it('a full sync keeps the stored files a truncated tree listing leaves out, and an empty repository syncs', async () => {
    const repo = gh.repos[0];
    assert.ok(repo);
    const before = (await externalIds(t, id)).filter((x) => x.startsWith('file:acme/api:'));
    assert.ok(before.length >= 1);
    repo.truncateTreeAt = 0;
    const empty: FakeRepo = { ...seededRepo('acme/empty', 0), files: new Map(), discussions: [] };
    gh.repos.push(empty);
    try {
      const after = await sync(true);
      assert.equal(after.status, 'idle', JSON.stringify(after.sync_runs[0]));
      assert.deepEqual((await externalIds(t, id)).filter((x) => x.startsWith('file:acme/api:')), before);
      assert.match(after.status_reason, /skipped, stored versions kept: file:acme\/api:.*\(GitHub truncated the tree listing\)/);
      assert.ok((await externalIds(t, id)).includes('repo:acme/empty'));
    } finally {
      delete repo.truncateTreeAt;
      gh.repos.splice(gh.repos.indexOf(empty), 1);
    }
  });

  it('honours a vendor 429 Retry-After: rate_limited while waiting, then finishes', async () => {
    gh.rateLimitNext(1, 1);
    const after = await sync(false);
    assert.equal(after.status, 'idle');
    assert.equal(after.sync_runs[0].rate_limited_waits, 1);
    assert.equal(after.sync_runs[0].status, 'completed');
  });

  const repoNamed = (name: string): FakeRepo => {
    const r = gh.repos.find((x) => x.full_name === name);
    assert.ok(r, name);
    return r;
  };
  const blobRequests = () => gh.requests.filter((r) => r.includes('/git/blobs/'));

  it('an incremental sync reads a repository it has not seen before in full, however old its content', async () => {
    const fresh = seededRepo('acme/new', 3);
    const first = fresh.issues[0];
    assert.ok(first);
    first.updated_at = '2025-03-01T00:00:00Z'; // older than the cursor, like everything in acme/new
    gh.repos.push(fresh);
    gh.requests.length = 0;
    const after = await sync(false);
    assert.equal(after.sync_runs[0].status, 'completed');
    const ids = await externalIds(t, id);
    const want = ['repo:acme/new', 'issue:acme/new#1', 'issue:acme/new#2', 'issue:acme/new#3', 'discussion:acme/new#1', 'file:acme/new:README.md', 'file:acme/new:docs/guide.md'];
    for (const w of want) assert.ok(ids.includes(w), w);
    assert.equal(after.sync_runs[0].added, want.length, 'nothing else was new');
    assert.ok(gh.requests.some((r) => r.startsWith('GET /repos/acme/new/issues?') && !r.includes('since=')), 'no since for the new repository');
    assert.ok(gh.requests.some((r) => r.startsWith('GET /repos/acme/api/issues?') && r.includes('since=')), 'known repositories stay incremental');

    gh.requests.length = 0;
    const again = await sync(false);
    assert.equal(again.sync_runs[0].added, 0);
    assert.ok(gh.requests.some((r) => r.startsWith('GET /repos/acme/new/issues?') && r.includes('since=')), 'once read, the repository is incremental too');
    assert.deepEqual(blobRequests(), [], 'its unchanged tree is not read again');

    // Out of sight for a while (access lost), then back: what changed meanwhile may be older than the cursor.
    gh.repos.splice(gh.repos.indexOf(fresh), 1);
    await sync(false);
    fresh.issues.push({ number: 4, title: 'Filed while hidden', body: '', state: 'open', user: 'amy', created_at: '2025-04-01T00:00:00Z', updated_at: '2025-04-01T00:00:00Z' });
    gh.repos.push(fresh);
    gh.requests.length = 0;
    const back = await sync(false);
    assert.equal(back.sync_runs[0].added, 1);
    assert.ok((await externalIds(t, id)).includes('issue:acme/new#4'));
    assert.deepEqual(blobRequests(), [], 'stored files whose blob is unchanged are not fetched again');
  });

  it('an incremental sync fetches only new or changed blobs of a changed tree and deletes files it no longer has', async () => {
    const web = repoNamed('acme/web');
    web.files.set('docs/guide.md', 'A guide to deployment, revised.');
    web.files.set('docs/new.md', 'A page added since the last sync.');
    web.files.set('src/app.ts', 'export {};'); // not a wanted extension
    gh.requests.length = 0;
    const changed = await sync(false);
    assert.equal(changed.sync_runs[0].added, 1);
    assert.equal(changed.sync_runs[0].updated, 1);
    const blobs = blobRequests();
    assert.equal(blobs.length, 2, `only the new and the changed blob: ${blobs.join(', ')}`);
    assert.ok(blobs.every((r) => r.startsWith('GET /repos/acme/web/git/blobs/')));
    assert.equal((await fileDoc(t, id, 'file:acme/web:docs/guide.md')).content, 'A guide to deployment, revised.');
    assert.ok((await externalIds(t, id)).includes('file:acme/web:docs/new.md'));

    web.files.delete('README.md');
    gh.requests.length = 0;
    const removed = await sync(false);
    assert.equal(removed.sync_runs[0].sync_type, 'incremental');
    assert.equal(removed.sync_runs[0].deleted, 1);
    assert.deepEqual(blobRequests(), []);
    const ids = await externalIds(t, id);
    assert.ok(!ids.includes('file:acme/web:README.md'), 'a file deleted from the repository goes without waiting for the full sync');
    assert.ok(ids.includes('file:acme/web:docs/guide.md'));
  });

  it('file documents carry the date and author of their last commit, one GraphQL request per page of files', async () => {
    const api = repoNamed('acme/api');
    const quoted = `docs/it's "quoted" {x}.md`;
    api.files.set('docs/dated.md', 'A dated page.');
    api.files.set(quoted, 'A page whose name has quotes.');
    api.commits = new Map([
      ['docs/dated.md', { date: '2025-05-05T10:00:00Z', author: 'Ada Lovelace', login: 'ada' }],
      [quoted, { date: '2025-06-06T12:30:00Z', author: 'Grace Hopper', login: null }],
    ]);
    gh.graphql.length = 0;
    const after = await sync(false);
    assert.equal(after.sync_runs[0].added, 2);
    const history = gh.graphql.filter((q) => q.query.includes('history('));
    assert.equal(history.length, 1, 'one history request for the page');
    assert.equal(history[0]?.query.includes('quoted'), false, 'paths are variables, not query text');
    const paths = Object.values(history[0]?.variables ?? {}).filter((v) => typeof v === 'string' && v.startsWith('docs/'));
    assert.deepEqual(paths.sort(), ['docs/dated.md', quoted].sort());
    assert.deepEqual(await fileDoc(t, id, 'file:acme/api:docs/dated.md'), { author: 'ada', updated_at: '2025-05-05T10:00:00.000Z', content: 'A dated page.' });
    const q = await fileDoc(t, id, `file:acme/api:${quoted}`);
    assert.deepEqual([q.author, q.updated_at], ['Grace Hopper', '2025-06-06T12:30:00.000Z'], 'the git author name when it is no GitHub account');
    const earlier = await fileDoc(t, id, 'file:acme/new:README.md');
    assert.deepEqual([earlier.author, earlier.updated_at], ['octocat', '2024-06-01T00:00:00.000Z'], "earlier syncs dated files too (the fake's default commit)");
  });

  it('a failed history lookup keeps the files undated; a GraphQL rate limit waits and retries', async () => {
    const api = repoNamed('acme/api');
    api.files.set('docs/undated.md', 'History timed out for this one.');
    gh.failHistoryNext(1, 502);
    const failed = await sync(false);
    assert.equal(failed.sync_runs[0].status, 'completed');
    assert.deepEqual(await fileDoc(t, id, 'file:acme/api:docs/undated.md'), { author: null, updated_at: null, content: 'History timed out for this one.' });

    api.files.set('docs/limited.md', 'Dated after a wait.');
    api.commits?.set('docs/limited.md', { date: '2025-07-07T07:00:00Z', author: 'Amy', login: 'amy' });
    gh.graphqlRateLimitNext(1);
    const limited = await sync(false);
    assert.equal(limited.sync_runs[0].status, 'completed');
    assert.equal(limited.sync_runs[0].rate_limited_waits, 1, 'RATE_LIMITED (HTTP 200) is a rate limit, not a failed lookup');
    assert.deepEqual(await fileDoc(t, id, 'file:acme/api:docs/limited.md'), { author: 'amy', updated_at: '2025-07-07T07:00:00.000Z', content: 'Dated after a wait.' });
  });

  it('a push webhook dates the files it upserts like the sync', async () => {
    const enabled = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
    assert.equal(enabled.statusCode, 201, enabled.body);
    const api = repoNamed('acme/api');
    api.files.set('docs/pushed.md', 'Pushed page.');
    api.commits?.set('docs/pushed.md', { date: '2025-08-08T08:00:00Z', author: 'Lin', login: 'lin' });
    const body = JSON.stringify({
      ref: 'refs/heads/main',
      repository: { full_name: 'acme/api', private: false, default_branch: 'main', html_url: 'https://github.com/acme/api' },
      commits: [{ added: ['docs/pushed.md'], modified: [], removed: [] }],
    });
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(enabled.json().delivery_url).pathname,
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'd-push', 'x-hub-signature-256': await sign(enabled.json().secret, body) },
      payload: body,
    });
    assert.equal(res.json().status, 'applied', res.body);
    assert.deepEqual(await fileDoc(t, id, 'file:acme/api:docs/pushed.md'), { author: 'lin', updated_at: '2025-08-08T08:00:00.000Z', content: 'Pushed page.' });
  });

  it('bad credentials put the connector in error with an actionable message, without retries', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'bad', credentials: { access_token: 'ghp_wrong' } } });
    const bad = created.json().connector_id;
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${bad}`, headers: t.admin })).json();
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /rejected the credentials.*401/);
    const s = await t.app.inject({ method: 'POST', url: `/v1/connectors/${bad}/sync`, headers: t.admin });
    assert.equal(s.statusCode, 202, 'a connector in error may retry a sync');
    await worker.drain();
    const c2 = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${bad}`, headers: t.admin })).json();
    assert.equal(c2.status, 'error');
    assert.equal(c2.sync_runs[0].status, 'failed');
    const jobs = await t.db.query<{ attempts: number; status: string }>("SELECT attempts, status FROM jobs WHERE kind = 'connector.sync' AND payload->>'connectorId' = $1", [bad]);
    assert.deepEqual(jobs.rows, [{ attempts: 1, status: 'failed' }], 'no retry loop');
    const fixed = await t.app.inject({ method: 'PUT', url: `/v1/connectors/${bad}/credentials`, headers: t.admin, payload: { credentials: { access_token: gh.token } } });
    assert.deepEqual(fixed.json(), { connector_id: bad, status: 'connecting' });
    await worker.drain();
    const c3 = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${bad}`, headers: t.admin })).json();
    assert.equal(c3.status, 'connected');
  });
});
