import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

async function externalIds(t: TestApp, connectorId: string): Promise<string[]> {
  const r = await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY external_id', [connectorId]);
  return r.rows.map((x) => x.external_id);
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
    assert.equal(after.document_count, ids.length);
    const run = after.sync_runs[0];
    assert.equal(run.status, 'completed');
    assert.equal(run.added, ids.length);
    assert.ok(gh.requests.some((r) => r.includes('/issues?') && r.includes('page=2')), 'issue pages followed');
    const doc = await t.db.query<Record<string, unknown>>("SELECT * FROM documents WHERE source_node = $1 AND external_id = 'issue:acme/api#1'", [id]);
    assert.equal(doc.rows[0]?.author, 'user1');
    assert.equal(doc.rows[0]?.url, 'https://github.com/acme/api/issues/1');
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

  it('honours a vendor 429 Retry-After: rate_limited while waiting, then finishes', async () => {
    gh.rateLimitNext(1, 1);
    const after = await sync(false);
    assert.equal(after.status, 'idle');
    assert.equal(after.sync_runs[0].rate_limited_waits, 1);
    assert.equal(after.sync_runs[0].status, 'completed');
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
