import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NOTION_VERSION } from '../../src/connectors/notion/client.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeNotion, startFakeNotion } from '../fakes/notion.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

describe('notion connector against the fake Notion REST API', () => {
  let t: TestApp;
  let notion: FakeNotion;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Lists of 2 items per page, so search, block children, data source queries and comments all paginate.
    notion = await startFakeNotion({ pageSize: 2 });
    t = await createTestApp({
      clock,
      env: {
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ notion: notion.url }),
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ notion: { client_id: 'notion-client', client_secret: 'notion-secret' } }),
      },
    });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await notion.close();
  });

  const d = () => notion.data;
  const ids = () => (d() as unknown as { ids: Record<string, string> }).ids;
  const live = (x: Record<string, unknown>) => !x.archived && !x.in_trash;
  const stored = async (cid = id) => (await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY 1', [cid])).rows.map((r) => r.external_id);
  const doc = async (externalId: string, cid = id) =>
    (await t.db.query<{ title: string; content: string; url: string; author: string; document_type: string; metadata: Record<string, unknown> }>('SELECT * FROM documents WHERE source_node = $1 AND external_id = $2', [cid, externalId])).rows[0];
  const create = async (settings: Record<string, unknown>, token = notion.token) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'notion', display_name: 'Notion', credentials: { access_token: token }, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json().connector_id as string;
  };
  const get = async (cid = id) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
  const sync = async (full: boolean, cid = id) => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${cid}/sync?full=${full}`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    return get(cid);
  };

  it('a full sync stores live pages, the database and its rows, and comments, through paginated calls', async () => {
    id = await create({ include_comments: true });
    assert.equal((await get()).status, 'connected');
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const want = [...d().pages.filter(live).map((x) => `page:${String(x.id)}`), ...d().dataSources.map((x) => `database:${String(x.id)}`), ...d().comments.map((x) => `comment:${String(x.id)}`)].sort();
    assert.deepEqual(await stored(), want);
    assert.equal((await stored()).includes(`page:${ids().archived}`), false, 'archived pages are skipped');
    // Every call carried the pinned API version; search, block children and the data source query paginated.
    assert.ok(notion.calls.every((x) => x.version === NOTION_VERSION));
    assert.ok(notion.calls.some((x) => x.path === '/v1/search' && x.body?.start_cursor));
    assert.ok(notion.calls.some((x) => x.path === `/v1/data_sources/${ids().source}/query`));
    assert.ok(notion.calls.filter((x) => x.path === `/v1/blocks/${ids().handbook}/children`).length >= 10);
  });

  it('renders every block type of a page faithfully, with author, URL and parent metadata', async () => {
    const h = await doc(`page:${ids().handbook}`);
    assert.ok(h);
    assert.equal(h.title, 'Engineering Handbook');
    assert.equal(h.author, 'Amy Lee');
    assert.equal(h.document_type, 'page');
    assert.match(h.url, /^https:\/\/www\.notion\.so\/Engineering-Handbook-/);
    assert.deepEqual(h.metadata.parent, { type: 'workspace' });
    assert.equal(h.metadata.notion_id, ids().handbook);
    for (const line of [
      '# Engineering Handbook',
      '## Principles',
      '### Release steps',
      '- Review everything\n  - even docs',
      '1. Open a pull request\n2. Wait for CI\n3. Merge',
      '[x] Write the changelog',
      '```bash\nnpm run deploy -- --prod\n```',
      '💡 Deploys freeze on Fridays',
      '> Make it work, then make it fast',
      '▸ On-call details\n  Page the secondary after 15 minutes\n  ▸ Escalation\n    Call the VP of engineering',
      '| Service | Owner |\n| search | Amy |',
      'bookmark: Runbook https://acme.dev/runbook',
      'embed https://www.figma.com/file/abc',
      '---',
      '[page: Onboarding]',
      '[database: Projects]',
    ]) {
      assert.ok(h.content.includes(line), `missing ${JSON.stringify(line)} in:\n${h.content}`);
    }
    const sub = await doc(`page:${ids().onboarding}`);
    assert.deepEqual(sub?.metadata.parent, { type: 'page_id', id: ids().handbook });
    assert.equal(sub?.author, 'Bob Park');
  });

  it('database rows carry their properties; the database its columns; comments their page', async () => {
    const row = await doc(`page:${ids().search}`);
    assert.equal(row?.document_type, 'database_row');
    assert.match(row?.content ?? '', /Status: In progress\nOwner: Amy Lee\nDue: 2026-03-01\nHybrid search/);
    assert.deepEqual(row?.metadata.parent, { type: 'data_source_id', id: ids().source });
    const db = await doc(`database:${ids().source}`);
    assert.equal(db?.title, 'Projects');
    assert.match(db?.content ?? '', /Every engineering project.*\nColumns: Name \(title\), Status \(status\), Owner \(people\), Due \(date\)/);
    const comment = d().comments.find((c) => (c.parent as { page_id: string }).page_id === ids().search);
    const cd = await doc(`comment:${String(comment?.id)}`);
    assert.equal(cd?.content, 'Blocked on the embeddings work');
    assert.equal(cd?.author, 'Bob Park');
    assert.equal(cd?.title, 'Comment on Search revamp');
  });

  it('inline discussions on blocks (nested ones too) become comments; only blocks that can carry one are asked', async () => {
    const onCallout = d().comments.filter((c) => (c.parent as { block_id?: string }).block_id === ids().callout);
    assert.equal(onCallout.length, 3, 'a three-comment discussion, read across pages of 2');
    for (const c of onCallout) {
      const cd = await doc(`comment:${String(c.id)}`);
      assert.equal(cd?.title, 'Comment on Engineering Handbook');
      assert.equal(cd?.metadata.block_id, ids().callout);
      assert.deepEqual(cd?.metadata.parent, { type: 'block_id', id: ids().callout });
      assert.equal(cd?.metadata.page_id, ids().handbook);
      assert.equal(cd?.url, `${String(d().pages.find((x) => x.id === ids().handbook)?.url)}?d=${String(c.discussion_id).replace(/-/g, '')}`);
    }
    assert.equal((await doc(`comment:${String(onCallout[1]?.id)}`))?.content, 'No, hotfixes may ship on Fridays.');
    const nested = d().comments.find((c) => (c.parent as { block_id?: string }).block_id === ids().secondary);
    assert.equal((await doc(`comment:${String(nested?.id)}`))?.content, 'Fifteen minutes is too long at night');
    // Request cost: comments were listed for pages and for blocks with content only, never for layout,
    // references, dividers or empty paragraphs.
    const allBlocks = [...d().blocks.values()].flat();
    const askedIds = notion.calls.filter((x) => x.path === '/v1/comments').map((x) => new URLSearchParams(x.query).get('block_id'));
    const kinds = new Set(askedIds.map((bid) => (d().pages.some((pg) => pg.id === bid) ? 'page' : String(allBlocks.find((b) => b.id === bid)?.type))));
    for (const never of ['divider', 'child_page', 'child_database', 'table', 'undefined']) assert.equal(kinds.has(never), false, `asked a ${never} block`);
    for (const wanted of ['page', 'callout', 'code', 'paragraph', 'table_row', 'bookmark', 'embed', 'toggle']) assert.ok(kinds.has(wanted), `never asked a ${wanted} block`);
    const empty = allBlocks.find((b) => b.type === 'paragraph' && JSON.stringify(b.paragraph).includes('"plain_text":""'));
    assert.ok(empty && !askedIds.includes(String(empty.id)), 'an empty paragraph is not asked');
  });

  it('appends to a page through execute; the incremental sync reads only what changed since the cursor', async () => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: 'add to the page: Remember your badge', context: { page: ids().onboarding } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().calls[0].action, 'append_to_page');
    assert.equal(r.json().calls[0].status, 'succeeded', r.body);
    const before = notion.calls.length;
    const c = await sync(false);
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.equal(c.sync_runs[0].added, 0);
    assert.ok(c.sync_runs[0].updated >= 1);
    assert.match((await doc(`page:${ids().onboarding}`))?.content ?? '', /Read the handbook\nRemember your badge/);
    // Newest-first search stopped at the cursor: the handbook's blocks were not read again.
    const run = notion.calls.slice(before);
    assert.equal(run.filter((x) => x.path === `/v1/blocks/${ids().handbook}/children`).length, 0);
    // ...nor its block comments: only the changed page (and its blocks) had comments listed.
    assert.equal(run.filter((x) => x.path === '/v1/comments' && x.query.includes(String(ids().callout))).length, 0);
    assert.ok(run.some((x) => x.path === '/v1/comments' && x.query.includes(String(ids().onboarding))));
    assert.ok(run.some((x) => x.path.startsWith('/v1/data_sources/') && JSON.stringify(x.body?.filter ?? {}).includes('on_or_after')));
  });

  it('creates a page through execute; an incremental sync picks it up, and removes a page archived since', async () => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: 'create a page: Incident review', context: { parent: ids().handbook } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().calls[0].action, 'create_page');
    assert.equal(r.json().calls[0].status, 'succeeded', r.body);
    const created = d().pages.at(-1);
    assert.equal(r.json().calls[0].result.id, created?.id);
    assert.deepEqual(created?.parent, { type: 'page_id', page_id: ids().handbook });
    assert.equal(JSON.stringify(created?.properties).includes('Incident review'), true);
    const onboarding = d().pages.find((x) => x.id === ids().onboarding);
    assert.ok(onboarding);
    onboarding.archived = true;
    onboarding.in_trash = true;
    onboarding.last_edited_time = notion.tick();
    const c = await sync(false);
    assert.equal(c.sync_runs[0].added, 1);
    assert.equal(c.sync_runs[0].deleted, 1);
    const now = await stored();
    assert.ok(now.includes(`page:${String(created?.id)}`));
    assert.equal(now.includes(`page:${ids().onboarding}`), false);
  });

  it('sync_archived keeps archived pages; max_depth bounds nested blocks; no comments when include_comments is off', async () => {
    const other = await create({ sync_archived: true, max_depth: 1, include_comments: false, include_databases: false });
    const c = await sync(true, other);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const got = await stored(other);
    assert.ok(got.includes(`page:${ids().archived}`));
    assert.equal((await doc(`page:${ids().archived}`, other))?.metadata.archived, true);
    assert.equal(got.filter((x) => x.startsWith('comment:') || x.startsWith('database:')).length, 0);
    assert.equal(got.includes(`page:${ids().search}`), false, 'rows belong to databases');
    const h = await doc(`page:${ids().handbook}`, other);
    assert.ok(h?.content.includes('▸ On-call details'));
    assert.equal(h?.content.includes('Page the secondary'), false);
  });

  it('include_block_comments off: only the pages’ own discussions are listed (one request a page)', async () => {
    const before = notion.calls.length;
    const other = await create({ include_block_comments: false, include_databases: false });
    const c = await sync(true, other);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    // Rows (the search page) are not read without include_databases.
    const pageComments = d().comments.filter((x) => (x.parent as { type: string }).type === 'page_id' && (x.parent as { page_id: string }).page_id !== ids().search);
    const got = (await stored(other)).filter((x) => x.startsWith('comment:'));
    assert.deepEqual(got, pageComments.map((x) => `comment:${String(x.id)}`).sort());
    const asked = notion.calls.slice(before).filter((x) => x.path === '/v1/comments').map((x) => new URLSearchParams(x.query).get('block_id'));
    assert.ok(asked.every((bid) => d().pages.some((pg) => pg.id === bid)), 'no block was asked');
  });

  it('without a token, creating a connector starts Notion OAuth (owner=user)', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'notion', display_name: 'oauth' } });
    assert.equal(r.statusCode, 201, r.body);
    const u = new URL(r.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://api.notion.com/v1/oauth/authorize');
    assert.equal(u.searchParams.get('owner'), 'user');
    assert.equal(u.searchParams.get('client_id'), 'notion-client');
    assert.equal(u.searchParams.get('response_type'), 'code');
  });

  it('a wrong token ends in error with what Notion said', async () => {
    const bad = await create({}, 'ntn_nope');
    const c = await get(bad);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /API token is invalid/);
  });
});
