import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, syncConnector } from './support.ts';

interface Row {
  external_id: string;
  title: string;
  content: string;
  url: string;
  author: string | null;
  document_type: string;
  updated_at: string | Date | null;
  metadata: Record<string, unknown>;
}

async function wikiDocs(t: TestApp, connectorId: string): Promise<Map<string, Row>> {
  const r = await t.db.query<Row>(
    "SELECT external_id, title, content, url, author, document_type, updated_at, metadata FROM documents WHERE source_node = $1 AND external_id LIKE 'wiki:%' ORDER BY external_id",
    [connectorId],
  );
  return new Map(r.rows.map((x) => [x.external_id, x]));
}

// A real gollum payload GitHub sent, as published by @octokit/webhooks-examples.
const gollumExample = (createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[]).find((x) => x.name === 'gollum')
  ?.examples[0];

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

describe('github connector: wiki pages over git smart HTTP (real git http-backend)', () => {
  let t: TestApp;
  let gh: FakeGitHub;
  let id: string;
  let worker: Worker;
  before(async () => {
    const api = seededRepo('acme/api', 2);
    const web = seededRepo('acme/web', 1, { private: true });
    const nowiki = seededRepo('acme/nowiki', 1);
    nowiki.has_wiki = false;
    const fork = { ...seededRepo('acme/forked', 1), fork: true };
    gh = await startFakeGitHub({ repos: [api, web, seededRepo('acme/empty', 1), nowiki, fork] });
    gh.wiki('acme/api', { 'Home.md': '# Welcome\n\nThe API wiki.', 'Getting-Started.md': 'Install it with npm.' }, { author: 'alice', date: '2025-03-01T10:00:00Z' });
    gh.wiki('acme/api', { 'Deploy-Guide.markdown': 'Deploy with the blue-green strategy.', '_Sidebar.md': '* [[Home]]', 'images/logo.png': 'PNG' }, { author: 'bob', date: '2025-03-02T10:00:00Z' });
    gh.wiki('acme/web', { 'Home.md': 'Private web wiki.' }, { author: 'carol', date: '2025-03-03T10:00:00Z' });
    gh.wiki('acme/nowiki', { 'Home.md': 'wikis are disabled for this repository' });
    gh.wiki('acme/forked', { 'Home.md': 'a fork is filtered out' });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await gh.close();
  });

  const sync = (full: boolean) => syncConnector(t, worker, id, full);

  it('the catalog lists wiki pages and the include_wiki setting', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin });
    const github = (r.json().connectors as { connector_type: string; content_types: string[] }[]).find((k) => k.connector_type === 'github');
    assert.ok(github);
    assert.ok(github.content_types.includes('wiki_pages'));
    assert.ok(JSON.stringify(github).includes('include_wiki'));
  });

  it('a full sync brings every wiki page with title, URL, author, time and repository; skips chrome, forks and missing wikis', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'github', display_name: 'GH wiki', credentials: { access_token: gh.token }, settings: { file_extensions: ['.md'] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c.sync_runs?.[0]));
    assert.equal(c.sync_runs[0].status, 'completed');
    const docs = await wikiDocs(t, id);
    assert.deepEqual([...docs.keys()], ['wiki:acme/api:Deploy-Guide.markdown', 'wiki:acme/api:Getting-Started.md', 'wiki:acme/api:Home.md', 'wiki:acme/web:Home.md']);
    const start = docs.get('wiki:acme/api:Getting-Started.md');
    assert.ok(start);
    assert.equal(start.title, 'acme/api wiki: Getting Started');
    assert.equal(start.content, 'Install it with npm.');
    assert.equal(start.url, `${gh.url}/acme/api/wiki/Getting-Started`);
    assert.equal(start.document_type, 'wiki_page');
    assert.equal(start.author, 'alice');
    assert.equal(iso(start.updated_at), '2025-03-01T10:00:00.000Z');
    assert.equal(start.metadata.repository, 'acme/api');
    const deploy = docs.get('wiki:acme/api:Deploy-Guide.markdown');
    assert.equal(deploy?.author, 'bob', 'the last commit that changed the page, not the HEAD for every page');
    assert.equal(deploy?.url, `${gh.url}/acme/api/wiki/Deploy-Guide`);
    assert.equal(docs.get('wiki:acme/web:Home.md')?.author, 'carol');
    // acme/empty has a wiki flag but no wiki repository (404), acme/nowiki has wikis off: no error, no pages.
    assert.ok(gh.requests.some((r) => r.startsWith('GET /acme/empty.wiki.git/info/refs')));
    assert.ok(!gh.requests.some((r) => r.includes('/acme/nowiki.wiki.git') || r.includes('/acme/forked.wiki.git')));
  });

  it('an incremental sync fetches nothing when no wiki changed', async () => {
    gh.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.equal(c.sync_runs[0].added + c.sync_runs[0].updated + c.sync_runs[0].deleted, 0);
    assert.ok(gh.requests.some((r) => r.startsWith('GET /acme/api.wiki.git/info/refs')), 'HEAD is checked');
    assert.ok(!gh.requests.some((r) => r.includes('git-upload-pack') && r.startsWith('POST')), 'no pack is fetched');
  });

  it('editing, adding and deleting pages + an incremental sync changes exactly those pages', async () => {
    gh.wiki('acme/api', { 'Home.md': '# Welcome\n\nThe API wiki, now edited.', 'FAQ.md': 'Frequently asked questions.', 'Getting-Started.md': null }, { author: 'dave', date: '2025-04-01T09:00:00Z' });
    const before = await wikiDocs(t, id);
    const c = await sync(false);
    const run = c.sync_runs[0];
    assert.equal(run.status, 'completed');
    assert.deepEqual({ added: run.added, updated: run.updated, deleted: run.deleted }, { added: 1, updated: 1, deleted: 1 });
    const docs = await wikiDocs(t, id);
    assert.deepEqual([...docs.keys()], ['wiki:acme/api:Deploy-Guide.markdown', 'wiki:acme/api:FAQ.md', 'wiki:acme/api:Home.md', 'wiki:acme/web:Home.md']);
    assert.equal(docs.get('wiki:acme/api:Home.md')?.content, '# Welcome\n\nThe API wiki, now edited.');
    assert.equal(docs.get('wiki:acme/api:Home.md')?.author, 'dave');
    assert.equal(docs.get('wiki:acme/api:FAQ.md')?.title, 'acme/api wiki: FAQ');
    assert.deepEqual(docs.get('wiki:acme/api:Deploy-Guide.markdown'), before.get('wiki:acme/api:Deploy-Guide.markdown'), 'an unchanged page is untouched');
    assert.deepEqual(docs.get('wiki:acme/web:Home.md'), before.get('wiki:acme/web:Home.md'));
  });

  it('a full sync keeps the wiki pages and a repository turning its wiki off drops them', async () => {
    let c = await sync(true);
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.equal(c.sync_runs[0].deleted, 0);
    assert.equal((await wikiDocs(t, id)).size, 4);
    const web = gh.repos.find((r) => r.full_name === 'acme/web');
    assert.ok(web);
    web.has_wiki = false;
    c = await sync(false);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.equal((await wikiDocs(t, id)).has('wiki:acme/web:Home.md'), false);
    web.has_wiki = true;
  });

  it('a git 429 with Retry-After is waited out (rate_limited), then the wiki is read', async () => {
    gh.wiki('acme/web', { 'Home.md': 'Private web wiki, revised.' }, { author: 'erin' });
    gh.gitRateLimitNext(1, 1);
    const started = Date.now();
    const c = await sync(false);
    assert.equal(c.status, 'idle');
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.equal(c.sync_runs[0].rate_limited_waits, 1);
    assert.ok(Date.now() - started >= 1000, 'Retry-After: 1 was honoured');
    assert.equal((await wikiDocs(t, id)).get('wiki:acme/web:Home.md')?.author, 'erin');
  });

  it('a signed gollum webhook reads the wiki and upserts the pages it names', async () => {
    const enabled = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
    assert.equal(enabled.statusCode, 201, enabled.body);
    assert.ok(enabled.json().events.includes('gollum'));
    gh.wiki('acme/api', { 'Home.md': 'Home, edited on the web.', 'FAQ.md': 'FAQ edited in the same push but not named by the event.' }, { author: 'frank' });
    assert.ok(gollumExample);
    const payload = structuredClone(gollumExample) as { pages: { page_name: string }[]; repository: Record<string, unknown> };
    assert.equal(payload.pages[0]?.page_name, 'Home');
    payload.repository = { ...payload.repository, full_name: 'acme/api', name: 'api', private: false, fork: false, html_url: `${gh.url}/acme/api` };
    const body = JSON.stringify(payload);
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(enabled.json().delivery_url).pathname,
      headers: { 'content-type': 'application/json', 'x-github-event': 'gollum', 'x-github-delivery': 'g-1', 'x-hub-signature-256': await sign(enabled.json().secret, body) },
      payload: body,
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual({ status: res.json().status, upserted: res.json().upserted }, { status: 'applied', upserted: 1 });
    const docs = await wikiDocs(t, id);
    assert.equal(docs.get('wiki:acme/api:Home.md')?.content, 'Home, edited on the web.');
    assert.equal(docs.get('wiki:acme/api:Home.md')?.author, 'frank');
    assert.notEqual(docs.get('wiki:acme/api:FAQ.md')?.author, 'frank', 'only the pages the event names');
    const c = await sync(false);
    assert.deepEqual({ added: c.sync_runs[0].added, updated: c.sync_runs[0].updated }, { added: 0, updated: 1 }, 'the next sync brings the rest; Home is unchanged');
  });

  it('include_wiki: false reads no wiki', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'github', display_name: 'no wikis', credentials: { access_token: gh.token }, settings: { include_wiki: false } },
    });
    const other = created.json().connector_id;
    await worker.drain();
    gh.requests.length = 0;
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${other}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202);
    await worker.drain();
    assert.equal((await wikiDocs(t, other)).size, 0);
    assert.ok(!gh.requests.some((x) => x.includes('.wiki.git')));
  });

  it('git rejecting the token fails the sync like other GitHub auth errors: connector error, actionable reason, no retry', async () => {
    gh.wiki('acme/api', { 'FAQ.md': 'changed again' });
    gh.gitToken = 'a-different-token';
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials.*wiki of acme\/api \(HTTP 401\)/);
      assert.equal(c.sync_runs[0].status, 'failed');
      assert.equal(JSON.stringify(c).includes(gh.token), false, 'the token is never returned');
      const jobs = await t.db.query<{ attempts: number; status: string }>(
        "SELECT attempts, status FROM jobs WHERE kind = 'connector.sync' AND payload->>'connectorId' = $1 ORDER BY created_at DESC LIMIT 1",
        [id],
      );
      assert.deepEqual(jobs.rows, [{ attempts: 1, status: 'failed' }]);
    } finally {
      gh.gitToken = gh.token;
    }
  });
});
