import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeCoda, startFakeCoda } from '../fakes/coda.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

describe('coda connector against the fake Coda API', () => {
  let t: TestApp;
  let coda: FakeCoda;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  const HB = 'hAnDbOoK01';
  const OS = 'oFfSiTe002';
  before(async () => {
    coda = await startFakeCoda(undefined, { docPage: 1, rowPage: 2, exportPolls: 1 });
    t = await createTestApp({ clock, env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ coda: coda.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await coda.close();
  });

  const d = () => coda.data;
  const expectedIds = () =>
    d()
      .docs.flatMap((doc) => [
        `doc:${doc.id}`,
        ...doc.pages.filter((p) => p.contentType === 'canvas').map((p) => `page:${doc.id}:${p.id}`),
        ...doc.tables.filter((x) => x.tableType === 'table').flatMap((x) => x.rows.map((r) => `row:${doc.id}:${x.id}:${r.id}`)),
      ])
      .sort();
  const stored = async () => storedIds(t.db, id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const docUpdatedAt = async (docId: string) => ((await doc(`doc:${docId}`))?.metadata as Record<string, unknown> | undefined)?.updated_at;
  const sync = (full: boolean) => syncConnector(t, worker, id, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'coda', display_name: 'Coda', ...payload } });
  const calls = (from: number) => coda.fake.requests.slice(from);
  const page = (docId: string, pageId: string) => {
    const p = coda.doc(docId).pages.find((x) => x.id === pageId);
    assert.ok(p);
    return p;
  };

  it('refuses unknown settings keys, a doc URL instead of an id, and missing credentials (400 naming the field)', async () => {
    const unknown = await create({ credentials: { api_token: coda.token }, settings: { folders: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*folders/);
    const bad = await create({ credentials: { api_token: coda.token }, settings: { docs: ['https://coda.io/d/Handbook_dhAnDbOoK01'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.docs/);
    const none = await create({ credentials: {} });
    assert.equal(none.statusCode, 400, none.body);
    assert.match(none.json().error.message, /credentials\.api_token/);
  });

  it('a full sync pages the doc list, exports canvas pages as Markdown (polled, downloaded without the token) and reads base-table rows', async () => {
    const created = await create({ credentials: { api_token: coda.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test/);
    const from = coda.fake.requests.length;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    const made = calls(from);
    assert.deepEqual(made.filter((r) => r.path === '/apis/v1/docs').map((r) => Boolean(r.query.pageToken)), [false, true]);
    const exportsBegun = made.filter((r) => r.method === 'POST').map((r) => r.path);
    assert.deepEqual(exportsBegun, ['/apis/v1/docs/hAnDbOoK01/pages/canvas-onboard/export', '/apis/v1/docs/hAnDbOoK01/pages/canvas-runbook/export', '/apis/v1/docs/oFfSiTe002/pages/canvas-agenda/export'], 'canvas pages only');
    assert.equal(made.filter((r) => /\/pages\/[^/]+\/export\/exp-/.test(r.path)).length, 6, 'each export polled until complete');
    const downloads = made.filter((r) => r.path.startsWith('/files/export/'));
    assert.ok(downloads.length === 3 && downloads.every((r) => r.status === 200 && r.token === null), 'downloads carry no token');
    assert.ok(made.filter((r) => r.path.endsWith('/tables')).every((r) => r.query.tableTypes === 'table'));
    const rows = made.filter((r) => r.path.endsWith('/rows'));
    assert.ok(rows.every((r) => r.query.useColumnNames === 'true' && r.query.valueFormat === 'simple'));
    assert.ok(rows.some((r) => r.query.pageToken), 'the 3 service rows read in pages of 2');
  });

  it('maps pages, rows and docs: readable text, links, authors, dates, the doc ACL', async () => {
    const onboarding = await doc(`page:${HB}:canvas-onboard`);
    assert.ok(onboarding);
    assert.equal(onboarding.title, 'Onboarding');
    assert.equal(onboarding.content, 'Your first week\n\nIn Engineering Handbook\n\n# Onboarding\n\nWelcome aboard!\n\nAsk **Grace** for a laptop and read the *incident runbook*.');
    assert.equal(onboarding.url, `https://coda.io/d/_d${HB}/_sucanvas-onboard`);
    assert.equal(onboarding.document_type, 'page');
    assert.equal(onboarding.author, 'ada@acme.test');
    assert.equal(new Date(String(onboarding.updated_at)).toISOString(), page(HB, 'canvas-onboard').updatedAt);
    assert.deepEqual(onboarding.acl, { users: ['ada@acme.test'], groups: [`coda:doc:${HB}`] });
    assert.match(String((await doc(`page:${HB}:canvas-runbook`))?.content), /^In Engineering Handbook › Onboarding\n\n## Paging/);
    const row = await doc(`row:${HB}:grid-services:i-svc1`);
    assert.equal(row?.title, 'billing-api');
    assert.equal(row?.content, 'Services row in Engineering Handbook\nService: billing-api\nOwner: Grace Hopper\nTier: 1\nLanguages: Go, SQL\nOn call: Yes\nNotes:\nHandles invoices.\nPages the payments team.');
    assert.equal(row?.document_type, 'row');
    const handbook = await doc(`doc:${HB}`);
    assert.equal(handbook?.content, 'Coda doc Engineering Handbook\nOwner: Ada Lovelace (Ada@Acme.test)\nFolder: Engineering\n\nPages:\n- Onboarding\n- Runbooks\n- Status page\n\nTables:\n- Services');
    assert.equal(await docUpdatedAt(HB), coda.doc(HB).updatedAt);
    assert.equal(await doc(`page:${HB}:embed-status`), undefined, 'embeds are not exported');
  });

  it('documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'roadmap review lighthouse', mode: 'lexical', filters: { connector_types: ['coda'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.ok(r.json().passages.some((p: { external_id: string }) => p.external_id === `page:${OS}:canvas-agenda`), r.body);
  });

  it('an incremental sync reads only docs whose updatedAt moved, exports only changed pages, and removes a doc that is gone', async () => {
    const runbook = page(HB, 'canvas-runbook');
    runbook.markdown = '## Paging\n\n- Acknowledge within 2 minutes\n';
    runbook.updatedAt = coda.tick();
    coda.touch(coda.doc(HB));
    const offsite = d().docs.splice(1, 1)[0];
    assert.ok(offsite);
    const from = coda.fake.requests.length;
    const c = await sync(false).finally(() => d().docs.push(offsite));
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    // The runbook page and the handbook's own document (its updatedAt); the offsite doc, its page and 2 rows.
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 2, 4]);
    const made = calls(from);
    assert.deepEqual(made.filter((r) => r.method === 'POST').map((r) => r.path), ['/apis/v1/docs/hAnDbOoK01/pages/canvas-runbook/export']);
    assert.match(String((await doc(`page:${HB}:canvas-runbook`))?.content), /within 2 minutes/);
    assert.equal(await doc(`doc:${OS}`), undefined);
    // Back at the source: the offsite doc returns on the next sync; unchanged docs cost only the doc list.
    const again = coda.fake.requests.length;
    await sync(false);
    assert.deepEqual(await stored(), expectedIds());
    const later = coda.fake.requests.length;
    await sync(false);
    assert.deepEqual(calls(later).map((r) => r.path), ['/apis/v1/whoami', '/apis/v1/docs', '/apis/v1/docs'], 'the credential check, then the doc list (2 pages)');
    assert.ok(calls(again).length > 2);
  });

  it('a page whose export fails keeps its stored version, is named in status_reason, and is retried by the next incremental sync', async () => {
    const onboarding = page(HB, 'canvas-onboard');
    onboarding.exportError = 'Page is too large to export';
    onboarding.markdown = '# Onboarding\n\nNew: badge pickup at reception.\n';
    onboarding.updatedAt = coda.tick();
    coda.touch(coda.doc(HB));
    const c = await sync(false);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.match(c.status_reason, /page:hAnDbOoK01:canvas-onboard \(Coda could not export the page: Page is too large to export\)/);
    assert.match(String((await doc(`page:${HB}:canvas-onboard`))?.content), /Welcome aboard/);
    assert.equal(await docUpdatedAt(HB), null);
    delete onboarding.exportError;
    await sync(false);
    assert.match(String((await doc(`page:${HB}:canvas-onboard`))?.content), /badge pickup/);
    assert.equal(await docUpdatedAt(HB), coda.doc(HB).updatedAt);
  });

  it('a full sync removes a deleted row; a 429 on an export is waited out', async () => {
    const services = coda.doc(HB).tables[0];
    const gone = services?.rows.pop();
    assert.ok(services && gone);
    coda.touch(coda.doc(HB));
    coda.fake.rateLimitNext(1, 1, (req) => req.method === 'POST');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    coda.fake.failNext(1, 502, (req) => req.path.endsWith('/rows'));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Coda answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked token puts the connector in error with what Coda said', async () => {
    coda.fake.revoke(coda.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Coda answered 401 .*Unauthorized.*Coda API token/);
    } finally {
      coda.fake.allow(coda.token);
    }
  });

  it('is in the catalogue as productivity with API-token auth only (Coda has no OAuth for its REST API)', async () => {
    const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
    const entry = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'coda');
    assert.equal(entry?.group, 'productivity');
    assert.deepEqual(entry?.auth_types, ['api_key']);
  });
});
