import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getKind } from '../../src/connectors/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { scheduleDueSyncs } from '../../src/sync/index.ts';
import { seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { startFakeLinear } from '../fakes/linear.ts';
import { startFakeNotion } from '../fakes/notion.ts';
import { loadSlackExport, startFakeSlack } from '../fakes/slack.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

/**
 * The contract every syncing connector kind passes, each against its vendor fake: credentials are checked
 * (bad → error, no retry loop), a full sync stores exactly the source, an incremental sync adds exactly what
 * changed after the cursor, a full sync removes what vanished, a vendor 429 is waited out, the scheduler
 * starts incremental syncs when due, and (kinds with webhooks) unsigned deliveries are refused.
 */
interface Fixture {
  readonly env: Record<string, string>;
  readonly credentials: Record<string, unknown>;
  readonly badCredentials: Record<string, unknown>;
  readonly settings?: Record<string, unknown>;
  /** The external ids the source holds now. */
  expected(): string[];
  /** Adds one item changed after the last sync; returns its external id. */
  addItem(): string;
  /** Removes one item at the source; returns its external id. */
  removeItem(): string;
  rateLimitNext(): void;
  close(): Promise<void>;
}

const FIXTURES: Record<string, () => Promise<Fixture>> = {
  async github() {
    const gh = await startFakeGitHub({ repos: [seededRepo('acme/one', 12), seededRepo('acme/two', 3)] });
    let next = 100;
    return {
      env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }) },
      credentials: { access_token: gh.token },
      badCredentials: { access_token: 'ghp_bad' },
      settings: { file_extensions: ['.md'] },
      expected: () =>
        gh.repos
          .flatMap((r) => [
            `repo:${r.full_name}`,
            ...r.issues.map((i) => `${i.pull ? 'pr' : 'issue'}:${r.full_name}#${i.number}`),
            ...[...r.files.keys()].filter((p) => p.endsWith('.md')).map((p) => `file:${r.full_name}:${p}`),
            ...r.discussions.map((d) => `discussion:${r.full_name}#${d.number}`),
          ])
          .sort(),
      addItem() {
        const n = next++;
        const t = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
        gh.repos[0]?.issues.push({ number: n, title: `new ${n}`, body: 'new', state: 'open', user: 'amy', created_at: t, updated_at: t });
        return `issue:acme/one#${n}`;
      },
      removeItem() {
        const repo = gh.repos[0];
        const gone = repo?.issues.shift();
        assert.ok(repo && gone);
        return `${gone.pull ? 'pr' : 'issue'}:${repo.full_name}#${gone.number}`;
      },
      rateLimitNext: () => gh.rateLimitNext(1, 1),
      close: () => gh.close(),
    };
  },
  async linear() {
    const lin = await startFakeLinear();
    const d = lin.data;
    let n = 0;
    return {
      env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ linear: lin.url }) },
      credentials: { api_key: lin.apiKey },
      badCredentials: { api_key: 'lin_api_wrong' },
      settings: { include_comments: true, sync_attachments: true },
      expected: () =>
        [
          ...d.issues.filter((i) => !i.archivedAt).map((i) => `issue:${i.id}`),
          ...d.projects.map((p) => `project:${p.id}`),
          ...d.cycles.map((c) => `cycle:${c.id}`),
          ...d.documents.map((x) => `document:${x.id}`),
          ...d.milestones.map((m) => `milestone:${m.id}`),
          ...d.comments.map((c) => `comment:${c.id}`),
          ...d.attachments.map((a) => `attachment:${a.id}`),
        ].sort(),
      addItem() {
        const base = d.issues[0];
        assert.ok(base);
        const t = lin.tick();
        const id = `new-issue-${++n}`;
        d.issues.push({ ...base, id, identifier: `ENG-${900 + n}`, title: `New issue ${n}`, createdAt: t, updatedAt: t, archivedAt: null });
        return `issue:${id}`;
      },
      removeItem() {
        const i = d.issues.findIndex((x) => !x.archivedAt && !d.comments.some((c) => c.issue.id === x.id) && !d.attachments.some((a) => a.issue.id === x.id));
        const [gone] = d.issues.splice(i, 1);
        assert.ok(gone);
        return `issue:${gone.id}`;
      },
      rateLimitNext: () => lin.rateLimitNext(1, 1),
      close: () => lin.close(),
    };
  },
  async notion() {
    const notion = await startFakeNotion();
    const d = notion.data;
    let n = 0;
    const live = (x: Record<string, unknown>) => !x.archived && !x.in_trash;
    return {
      env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ notion: notion.url }) },
      credentials: { access_token: notion.token },
      badCredentials: { access_token: 'ntn_wrong' },
      // Comments are covered in test/connectors/notion.test.ts; fewer calls keep this suite fast at 3 requests/second.
      settings: { include_comments: false },
      expected: () => [...d.pages.filter(live).map((x) => `page:${String(x.id)}`), ...d.dataSources.filter(live).map((x) => `database:${String(x.id)}`)].sort(),
      addItem: () => `page:${String(notion.addPage(`New page ${++n}`, ['fresh content']).id)}`,
      removeItem() {
        const i = d.pages.findIndex((x) => live(x) && (x.parent as { type: string }).type === 'page_id');
        const [gone] = d.pages.splice(i, 1);
        assert.ok(gone);
        return `page:${String(gone.id)}`;
      },
      rateLimitNext: () => notion.rateLimitNext(1, 1),
      close: () => notion.close(),
    };
  },
  async slack() {
    const seed = await loadSlackExport();
    const slack = await startFakeSlack(seed, { pageSize: 15 });
    let tick = 0;
    const housekeeping = (s?: string) => s?.startsWith('channel_') || s === 'bot_add' || s === 'bot_remove';
    return {
      env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }) },
      credentials: { token: slack.token },
      badCredentials: { token: 'xoxb-bad' },
      // Integration posts count by their attachments (the export's GitHub notices have empty text).
      expected: () =>
        slack.channels
          .flatMap((c) => c.messages.filter((m) => !housekeeping(m.subtype) && (m.text.trim() || m.attachments?.some((a) => (a.text ?? a.fallback ?? '').trim()))).map((m) => `msg:${c.id}:${m.ts}`))
          .sort(),
      addItem() {
        const c = slack.channels[0];
        assert.ok(c);
        const ts = `${1_700_000_000 + tick++}.000001`;
        c.messages.push({ ts, user: slack.users[0]?.id, text: `new message ${ts}` });
        return `msg:${c.id}:${ts}`;
      },
      removeItem() {
        const c = slack.channels[1];
        assert.ok(c);
        const i = c.messages.findIndex((m) => !housekeeping(m.subtype) && m.text.trim());
        const [gone] = c.messages.splice(i, 1);
        assert.ok(gone);
        return `msg:${c.id}:${gone.ts}`;
      },
      rateLimitNext: () => slack.rateLimitNext(1, 1),
      close: () => slack.close(),
    };
  },
};

for (const [kind, makeFixture] of Object.entries(FIXTURES)) {
  describe(`connector contract: ${kind}`, () => {
    let f: Fixture;
    let t: TestApp;
    let worker: Worker;
    let id: string;
    const clock = fixedClock(new Date());
    before(async () => {
      f = await makeFixture();
      t = await createTestApp({ clock, env: { ...f.env, ATRIUM_SYNC_SCHEDULER: 'false' } });
      worker = connectorWorker(t);
    });
    after(async () => {
      await t.close();
      await f.close();
    });
    const create = async (credentials: Record<string, unknown>) => {
      const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: kind, display_name: kind, credentials, settings: f.settings } });
      assert.equal(r.statusCode, 201, r.body);
      await worker.drain();
      return r.json().connector_id as string;
    };
    const get = async (cid = id) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
    const sync = async (full: boolean) => {
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=${full}`, headers: t.admin });
      assert.equal(r.statusCode, 202, r.body);
      await worker.drain();
      return get();
    };
    const stored = async () => (await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY 1', [id])).rows.map((r) => r.external_id);

    it('is in the catalogue with sync', async () => {
      assert.ok(getKind(kind)?.sync);
      const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
      assert.ok(cat.connectors.some((c: { connector_type: string; sync: boolean }) => c.connector_type === kind && c.sync));
    });

    it('bad credentials → error with a reason, no retry loop', async () => {
      const bad = await create(f.badCredentials);
      const c = await get(bad);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials/);
      const jobs = await t.db.query<{ attempts: number }>("SELECT attempts FROM jobs WHERE kind = 'connector.validate' AND payload->>'connectorId' = $1", [bad]);
      assert.deepEqual(jobs.rows.map((r) => Number(r.attempts)), [1]);
    });

    it('full sync stores exactly the source', async () => {
      id = await create(f.credentials);
      assert.equal((await get()).status, 'connected');
      const c = await sync(true);
      assert.equal(c.status, 'idle');
      assert.deepEqual(await stored(), f.expected());
      assert.equal(c.sync_runs[0].added, f.expected().length);
    });

    it('incremental sync adds exactly what changed after the cursor', async () => {
      const added = f.addItem();
      const c = await sync(false);
      assert.equal(c.sync_runs[0].added, 1);
      assert.ok((await stored()).includes(added));
      assert.deepEqual(await stored(), f.expected());
    });

    it('full sync removes what vanished at the source', async () => {
      const removed = f.removeItem();
      const c = await sync(true);
      assert.equal(c.sync_runs[0].deleted, 1);
      assert.equal((await stored()).includes(removed), false);
      assert.deepEqual(await stored(), f.expected());
    });

    it('a vendor 429 is waited out (rate_limited), then the sync completes', async () => {
      f.rateLimitNext();
      const c = await sync(false);
      assert.equal(c.status, 'idle');
      assert.equal(c.sync_runs[0].status, 'completed');
      assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
    });

    it('the scheduler starts an incremental sync when due, not before', async () => {
      const early = await scheduleDueSyncs(t.deps, new Date(clock.now().getTime() + 60_000));
      assert.equal(early.started.filter((s) => s.connectorId === id).length, 0);
      const due = await scheduleDueSyncs(t.deps, new Date(clock.now().getTime() + 16 * 60_000));
      assert.deepEqual(due.started.filter((s) => s.connectorId === id), [{ connectorId: id, syncType: 'incremental' }]);
      await worker.drain();
      const c = await get();
      assert.equal(c.sync_runs[0].trigger, 'schedule');
      assert.equal(c.status, 'idle');
    });

    it('refuses unsigned webhook deliveries (kinds with webhooks)', async () => {
      if (!getKind(kind)?.webhook) return;
      await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook/deliveries`, headers: { 'content-type': 'application/json' }, payload: '{}' });
      assert.equal(r.statusCode, 401);
    });
  });
}
