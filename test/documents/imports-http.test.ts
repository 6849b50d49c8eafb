// POST /v1/connectors/{id}/imports (uploads read by the `atrium ingest` readers) and GET /v1/status, over app.inject().
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import JSZip from 'jszip';
import { createTestApp, type TestApp } from '../support/app.ts';

const SLACK_EXPORT = path.resolve(import.meta.dirname, '../../../shared/data/slack-export/testarchive.zip');
const NOTION_ID = '0123456789abcdef0123456789abcdef';

async function addConnector(t: TestApp, id: string, type = 'api', tenant = 'default') {
  await t.db.query('INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [tenant]);
  await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, $2, $3, $1, 'connected')`, [id, tenant, type]);
}

describe('imports over HTTP', () => {
  let t: TestApp;
  let writer: { authorization: string };
  let reader: { authorization: string };
  before(async () => {
    t = await createTestApp();
    await addConnector(t, 'uploads');
    await addConnector(t, 'files-one', 'filesystem');
    writer = await t.keyWith(['connector:write']);
    reader = await t.keyWith(['query']);
  });
  after(() => t.close());

  const upload = (body: Buffer | string, contentType: string, query = '', headers = writer, connector = 'uploads') =>
    t.app.inject({ method: 'POST', url: `/v1/connectors/${connector}/imports${query}`, headers: { ...headers, 'content-type': contentType }, payload: body });
  const search = async (q: string) =>
    (await t.app.inject({ method: 'POST', url: '/v1/search', headers: reader, payload: { query: q, mode: 'lexical', sources: ['uploads'], limit: 50 } })).json().passages as {
      external_id: string;
      title: string;
      content: string;
    }[];

  it('ingests the shipped Slack export zip with users resolved to names', async () => {
    const res = await upload(await fs.readFile(SLACK_EXPORT), 'application/zip', '?filename=testarchive.zip');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.kind, 'Slack export');
    assert.ok(body.documents > 0, res.body);
    assert.equal(body.added, body.documents, res.body);
    assert.match(body.notes.join('\n'), /channels, \d+ users, \d+ messages/);
    const all = await search('joined channel');
    assert.ok(all.length > 0);
    assert.ok(!all.some((p) => /<@U[A-Z0-9]+>/.test(p.content)), 'Slack user mentions are rendered as names');
    // Idempotent: the same upload again changes nothing.
    const again = (await upload(await fs.readFile(SLACK_EXPORT), 'application/zip')).json();
    assert.equal(again.added, 0);
    assert.equal(again.unchanged, body.documents);
  });

  it('ingests a Notion-style zip and lists the files it skipped with why', async () => {
    const zip = new JSZip();
    zip.file(`Export/Roadmap ${NOTION_ID}.md`, '# Roadmap 2027\n\nShip the vec2vec bridge in March.');
    zip.file(`Export/Tasks ${NOTION_ID}.csv`, 'Name,Status\nMigrate billing,Done\n');
    zip.file(`Export/diagram.png`, new Uint8Array([137, 80, 78, 71]));
    const res = await upload(await zip.generateAsync({ type: 'nodebuffer' }), 'application/octet-stream', '?filename=notion.zip');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.kind, 'export archive');
    assert.equal(body.documents, 2);
    assert.deepEqual(body.skipped, [{ path: 'Export/diagram.png', reason: 'no parser for this file type' }]);
    assert.ok((await search('vec2vec bridge')).some((p) => p.title === 'Roadmap 2027'));
  });

  it('maps CSV columns from the query and reads JSONL', async () => {
    const csv = 'ticket,subject,body,opened\nT-1,Printer jams,The third floor printer jams on glossy paper,2026-03-04\nT-2,VPN drops,VPN drops every hour,2026-03-05\n';
    const res = await upload(csv, 'text/csv', '?id_column=ticket&title_column=subject&text_columns=body&date_column=opened');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().kind, res.json().added], ['CSV file', 2]);
    const hit = (await search('glossy printer'))[0];
    assert.equal(hit?.external_id, 'T-1');
    assert.equal(hit?.title, 'Printer jams');
    const jsonl = `${JSON.stringify({ external_id: 'j-1', title: 'Parking', content: 'Visitors park on level minus two.' })}\n`;
    const j = await upload(jsonl, 'application/x-ndjson');
    assert.equal(j.statusCode, 200, j.body);
    assert.equal(j.json().added, 1);
  });

  it('refuses what it cannot read in the documented shape', async () => {
    const bad = await upload('this is not a zip', 'application/zip', '?filename=export.zip');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_request');
    assert.match(bad.json().error.message, /export\.zip: not a readable zip archive/);
    assert.doesNotMatch(bad.json().error.message, /atrium-upload-/, 'no server temp path in the message');

    const column = await upload('a,b\n1,2\n', 'text/csv', '?id_column=nope');
    assert.equal(column.statusCode, 400);
    assert.match(column.json().error.message, /'nope' is not one of: a, b/);

    const empty = new JSZip();
    empty.file('picture.png', new Uint8Array([1, 2, 3]));
    const nothing = await upload(await empty.generateAsync({ type: 'nodebuffer' }), 'application/zip');
    assert.equal(nothing.statusCode, 400);
    assert.match(nothing.json().error.message, /nothing to import/);
    assert.deepEqual(nothing.json().error.details.skipped, [{ path: 'picture.png', reason: 'no parser for this file type' }]);

    const unknownType = await upload('x', 'text/plain');
    assert.equal(unknownType.statusCode, 415);
    assert.match(unknownType.json().error.message, /application\/zip/);
    const unnamed = await upload('x', 'application/octet-stream');
    assert.equal(unnamed.statusCode, 400);
    assert.match(unnamed.json().error.message, /cannot tell what the upload is/);
    assert.equal((await upload('a\n1\n', 'text/csv', '', writer, 'files-one')).statusCode, 409, 'only push (api) connectors take uploads');
    assert.equal((await upload('a\n1\n', 'text/csv', '', writer, 'missing')).statusCode, 404);
    assert.equal((await upload('a\n1\n', 'text/csv', '', reader)).statusCode, 403);
    const tooBig = await upload(Buffer.alloc(64 * 1024 * 1024 + 1), 'application/zip');
    assert.equal(tooBig.statusCode, 413);
  });

  it('GET /v1/status: admin only; storage, queue, workers, last syncs and models', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/status', headers: writer })).statusCode, 403);
    await t.db.query(
      `INSERT INTO connector_sync_runs (id, tenant_id, connector_id, sync_type, status, added, finished_at) VALUES ('run_1', 'default', 'uploads', 'full', 'completed', 7, now())`,
    );
    await t.db.query(`INSERT INTO jobs (id, tenant_id, kind) VALUES ('job_status_1', 'default', 'connector.sync')`);
    await t.db.query(`INSERT INTO jobs (id, tenant_id, kind) VALUES ('job_other_1', 'other', 'connector.sync')`);
    const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers: t.admin });
    assert.equal(res.statusCode, 200, res.body);
    const s = res.json();
    assert.equal(s.storage.mode, 'pglite');
    assert.ok(s.storage.size_bytes > 0, 'the database size is read');
    assert.deepEqual(s.queue.by_kind, [{ kind: 'connector.sync', queued: 1, running: 0 }]);
    assert.equal(s.queue.queued, 1);
    assert.equal(s.workers.in_this_process, true);
    assert.deepEqual(
      s.last_syncs.map((r: { connector_id: string; added: number }) => [r.connector_id, r.added]),
      [['uploads', 7]],
    );
    const models = new Map((s.models as { model: string; default: boolean; loaded: boolean; load_ms: number | null }[]).map((m) => [m.model, m]));
    assert.equal(models.get('builtin/glove-100d')?.default, true);
    assert.ok((models.get('builtin/glove-100d')?.load_ms ?? 0) > 0, 'the uploads loaded GloVe');
    assert.deepEqual([models.get('builtin/use-lite-512d')?.loaded, models.get('builtin/use-lite-512d')?.load_ms], [false, null]);
    // USE-lite loads on first use, in its worker threads: then its load time is known.
    await t.deps.embeddings?.get('builtin/use-lite-512d')?.embed(['warm up']);
    const after = (await t.app.inject({ method: 'GET', url: '/v1/status', headers: t.admin })).json();
    const use = after.models.find((m: { model: string }) => m.model === 'builtin/use-lite-512d');
    assert.equal(use.loaded, true);
    assert.ok(use.load_ms > 0);
  });
});
