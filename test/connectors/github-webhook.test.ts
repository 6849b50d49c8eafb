import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

interface Example {
  name: string;
  examples: Record<string, unknown>[];
}
// Real payloads GitHub sent, as published by @octokit/webhooks-examples.
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as Example[];
const example = (name: string, action?: string) => {
  const e = examples.find((x) => x.name === name)?.examples.find((x) => action === undefined || x.action === action);
  assert.ok(e, `example ${name}.${action}`);
  return structuredClone(e);
};

describe('github webhooks', () => {
  let t: TestApp;
  let gh: FakeGitHub;
  let id: string;
  let secret: string;
  let deliveryPath: string;
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/api', 2)] });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'gh', credentials: { access_token: gh.token } } });
    id = created.json().connector_id;
    await t.db.query("UPDATE connectors SET status = 'idle' WHERE id = $1", [id]);
    const enabled = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
    assert.equal(enabled.statusCode, 201, enabled.body);
    secret = enabled.json().secret;
    assert.deepEqual(enabled.json().events, ['push', 'issues', 'pull_request', 'discussion', 'gollum']);
    deliveryPath = new URL(enabled.json().delivery_url).pathname;
  });
  after(async () => {
    await t.close();
    await gh.close();
  });

  const deliver = async (event: string, payload: unknown, signature?: string) => {
    const body = JSON.stringify(payload);
    return t.app.inject({
      method: 'POST',
      url: deliveryPath,
      headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': 'd-1', 'x-hub-signature-256': signature ?? (await sign(secret, body)) },
      payload: body,
    });
  };

  it('applies real issues and pull_request payloads signed with the secret', async () => {
    const issue = example('issues', 'opened');
    const res = await deliver('issues', issue);
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().status, 'applied');
    const pr = await deliver('pull_request', example('pull_request', 'opened'));
    assert.equal(pr.json().status, 'applied');
    const d = await deliver('discussion', example('discussion', 'created'));
    assert.equal(d.json().status, 'applied');
    const ids = (await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY 1', [id])).rows.map((r) => r.external_id);
    const repo = (issue.repository as { full_name: string }).full_name;
    const number = (issue.issue as { number: number }).number;
    assert.ok(ids.includes(`issue:${repo}#${number}`), ids.join(','));
    assert.ok(ids.some((x) => x.startsWith('pr:')));
    assert.ok(ids.some((x) => x.startsWith('discussion:octo-org/octo-repo#')));
  });

  it('a late or replayed delivery does not overwrite a newer stored version', async () => {
    const edit = (title: string, updatedAt: string) => {
      const e = example('issues', 'edited');
      const issue = e.issue as { number: number; title: string; updated_at: string };
      issue.number = 4242;
      issue.title = title;
      issue.updated_at = updatedAt;
      return e;
    };
    const newer = await deliver('issues', edit('Checkout fails on Safari (NEW)', '2026-02-01T00:00:00Z'));
    assert.equal(newer.json().status, 'applied', newer.body);
    const stale = await deliver('issues', edit('Checkout fails (OLD)', '2026-01-01T00:00:00Z'));
    assert.equal(stale.statusCode, 202, stale.body);
    const row = await t.db.query<{ title: string; updated_at: Date }>("SELECT title, updated_at FROM documents WHERE source_node = $1 AND external_id LIKE '%#4242'", [id]);
    assert.equal(row.rows.length, 1);
    assert.match(row.rows[0]?.title ?? '', /NEW/);
    assert.equal(new Date(row.rows[0]?.updated_at ?? 0).toISOString(), '2026-02-01T00:00:00.000Z');
  });

  it('rejects a wrong or missing signature with 401 and stores nothing', async () => {
    const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    const issue = example('issues', 'opened');
    (issue.issue as { number: number }).number = 999_999;
    const bad = await deliver('issues', issue, await sign('not-the-secret', JSON.stringify(issue)));
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().error.code, 'invalid_signature');
    const tampered = await t.app.inject({
      method: 'POST',
      url: deliveryPath,
      headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': await sign(secret, '{"a":1}') },
      payload: JSON.stringify(issue),
    });
    assert.equal(tampered.statusCode, 401);
    const missing = await t.app.inject({ method: 'POST', url: deliveryPath, headers: { 'content-type': 'application/json', 'x-github-event': 'issues' }, payload: JSON.stringify(issue) });
    assert.equal(missing.statusCode, 401);
    const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    assert.equal(after.rows[0]?.n, before.rows[0]?.n);
  });

  it('answers an unknown connector id and a connector without a webhook alike (nothing learnt without a signature)', async () => {
    const api = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'push' } });
    const answers = [];
    for (const cid of ['github-doesnotexist0000', api.json().connector_id]) {
      const res = await t.app.inject({ method: 'POST', url: `/v1/connectors/${cid}/webhook/deliveries`, headers: { 'content-type': 'application/json' }, payload: '{}' });
      assert.equal(res.statusCode, 401);
      answers.push(res.json().error);
    }
    assert.deepEqual(answers[0], answers[1]);
  });

  it('a push fetches added/modified files and deletes removed ones', async () => {
    const push = example('push');
    const repo = gh.repos[0];
    assert.ok(repo);
    repo.files.set('docs/new.md', 'Brand new page about webhooks.');
    Object.assign(push, {
      ref: 'refs/heads/main',
      repository: { ...(push.repository as object), full_name: 'acme/api', private: false, default_branch: 'main', html_url: 'https://github.com/acme/api' },
      commits: [{ added: ['docs/new.md'], modified: [], removed: [] }],
    });
    const res = await deliver('push', push);
    assert.equal(res.json().status, 'applied', res.body);
    const doc = await t.db.query<{ content: string }>("SELECT content FROM documents WHERE source_node = $1 AND external_id = 'file:acme/api:docs/new.md'", [id]);
    assert.equal(doc.rows[0]?.content, 'Brand new page about webhooks.');
    Object.assign(push, { commits: [{ added: [], modified: [], removed: ['docs/new.md'] }] });
    const removed = await deliver('push', push);
    assert.equal(removed.json().deleted, 1);
  });
  it('ignores events of repositories the settings leave out (forks and archived repositories by default)', async () => {
    const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id]);
    for (const repository of [
      { full_name: 'acme/old', private: false, fork: false, archived: true },
      { full_name: 'someone/forked', private: false, fork: true, archived: false },
    ]) {
      const issue = example('issues', 'opened');
      Object.assign(issue, { repository: { ...(issue.repository as object), ...repository } });
      const res = await deliver('issues', issue);
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().upserted ?? 0, 0, res.body);
    }
    const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id]);
    assert.equal(after.rows[0]?.n, before.rows[0]?.n);
  });
});
