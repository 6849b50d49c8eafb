import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { SYNC_JOB_KIND } from '../../src/sync/index.ts';
import { APP, type FakeGraph, startFakeGraph, USER_TOKEN } from '../fakes/sharepoint.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('sharepoint connector against the fake Microsoft Graph', () => {
  let t: TestApp;
  let g: FakeGraph;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    g = await startFakeGraph();
    ({ t, worker } = await kindHarness('sharepoint', g.graphUrl, { clock, oauthClient: { client_id: 'spo-client', client_secret: 'spo-secret', token_url: `${g.url}/organizations/oauth2/v2.0/token` } }));
  });
  after(async () => {
    await t.close();
    await g.close();
  });

  const create = async (credentials: Record<string, unknown> | undefined, settings: Record<string, unknown> = {}) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'sharepoint', display_name: 'SharePoint', credentials, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json() as { connector_id: string; oauth_url?: string };
  };
  const get = async (cid = id) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) =>
    storedDocument(t.db, cid, externalId);
  const ext = (name: string) => {
    const i = g.byName(name);
    return `item:${i.driveId}:${i.id}`;
  };
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);

  it('is in the catalogue as a productivity files kind with OAuth and its settings as JSON Schema', async () => {
    const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
    const entry = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'sharepoint');
    assert.ok(entry);
    assert.deepEqual([entry.display_name, entry.category, entry.group, entry.auth_types, entry.oauth, entry.sync], ['SharePoint / OneDrive', 'files', 'productivity', ['oauth2'], true, true]);
    for (const key of ['site_urls', 'site_ids', 'include_onedrive', 'max_file_size_mb', 'file_extensions']) assert.ok(entry.settings_schema.properties[key]?.description, key);
    assert.deepEqual(Object.keys(entry.credentials_schema.properties).sort(), ['access_token', 'client_id', 'client_secret', 'tenant_id']);
  });

  it('a full sync stores every readable file of every site library and the OneDrive, mapped', async () => {
    id = (await create({ access_token: USER_TOKEN })).connector_id;
    const c0 = await get();
    assert.equal(c0.status, 'connected');
    assert.equal(c0.status_reason, 'authenticated as ada@contoso.com');
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), g.expectedIds());
    assert.equal((await stored()).includes(ext('logo.png')), false, 'images are not indexed');

    const plan = await doc(ext('Launch plan.docx'));
    assert.ok(plan);
    const mkt = g.sites[0];
    assert.ok(mkt);
    assert.equal(plan.title, 'Launch plan.docx');
    assert.match(String(plan.content), /The spring launch starts on March 3 with a webinar\./);
    assert.match(String(plan.url), /_layouts\/15\/Doc\.aspx\?sourcedoc=/);
    assert.equal(plan.author, 'bob@contoso.com');
    assert.equal(plan.document_type, 'document');
    const item = g.byName('Launch plan.docx');
    assert.equal(new Date(String(plan.created_at)).toISOString(), item.createdDateTime);
    assert.equal(new Date(String(plan.updated_at)).toISOString(), item.lastModifiedDateTime);
    assert.deepEqual(plan.acl, { groups: [`sharepoint:site:${mkt.id}`] });
    const meta = plan.metadata as Record<string, unknown>;
    assert.deepEqual([meta.site_name, meta.drive_name, meta.path, meta.drive_id], ['Marketing', 'Documents', '/Campaigns/Launch plan.docx', 'b!mkt-docs']);

    const pdf = await doc(ext('Brand guide.pdf'));
    assert.equal(pdf?.document_type, 'pdf');
    assert.match(String(pdf?.content), /Use the teal logo on dark backgrounds/);
    assert.equal(pdf?.author, 'ada.lovelace@contoso.com', 'emails are lower-cased');
    assert.deepEqual(pdf?.acl, { public: true, groups: [`sharepoint:site:${mkt.id}`] }, 'shared with the organization');

    const html = await doc(ext('Architecture.html'));
    assert.equal(html?.document_type, 'web_page');
    assert.doesNotMatch(String(html?.content), /<p>|^\{/, 'readable text, not markup or JSON');
    assert.match(String(html?.content), /The ingest tier writes to PostgreSQL/);
    assert.equal(((await doc(ext('Deploy.md')))?.metadata as Record<string, unknown> | undefined)?.path, '/Runbooks/Deploy/Deploy.md');
    const mine = await doc(ext('My notes.txt'));
    assert.deepEqual(mine?.acl, { users: ['ada.lovelace@contoso.com'] }, 'a OneDrive file is its owner’s');
    assert.equal((mine?.metadata as Record<string, unknown> | undefined)?.site_id, null);

    // The site search was paged, deltas asked for pages, downloads followed the 302 without the Graph token.
    assert.ok(g.fake.requests.some((r) => r.path === '/v1.0/sites' && r.query.$skiptoken));
    assert.ok(g.fake.requests.some((r) => /\/root\/delta$/.test(r.path) && r.query.$top === '50'));
    assert.ok(g.downloads.length >= 8);
    assert.ok(g.downloads.every((d) => !d.authorization));
    assert.equal(g.downloads.some((d) => d.itemId === g.byName('logo.png').id), false, 'unwanted types are not downloaded');
  });

  it('its files are searchable', async () => {
    const found = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'canary thirty minutes promoting release', mode: 'lexical' } });
    assert.equal(found.statusCode, 200, found.body);
    assert.equal(found.json().passages[0]?.external_id, ext('Deploy.md'));
  });

  it('an incremental sync follows the deltaLinks: edits, additions, a deleted folder, a renamed-away file, a 429 on the way', async () => {
    const deploy = ext('Deploy.md');
    const rollback = ext('Rollback.txt');
    const notes = g.byName('notes.md');
    g.updateFile(g.byName('API spec.md').id, Buffer.from('# API spec\n\nErrors carry a stable code and a request id.\n'));
    const added = g.addFile('b!onedrive-ada', 'Offsite agenda.md', Buffer.from('# Offsite\n\nDay one: roadmap review.\n'));
    g.remove(g.byName('Runbooks').id);
    g.updateFile(notes.id, notes.bytes, 'notes.png');
    g.fake.requests.length = 0;
    g.fake.rateLimitNext(1, 1, (r) => r.path.endsWith('/root/delta'));
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted, run.rate_limited_waits], [1, 1, 3, 1]);
    const deltas = g.fake.requests.filter((r) => r.path.endsWith('/root/delta') && r.status === 200);
    assert.equal(deltas.length, g.drives.length);
    assert.ok(deltas.every((r) => r.query.token), 'every drive resumed from its deltaLink');
    assert.equal(g.fake.requestsTo('/v1.0/sites').length, 2, 'sites are listed again, both search pages (new sites are picked up)');
    assert.match(String((await doc(ext('API spec.md')))?.content), /request id/);
    assert.ok(await doc(`item:${added.driveId}:${added.id}`));
    for (const gone of [deploy, rollback, `item:${notes.driveId}:${notes.id}`]) assert.equal(await doc(gone), undefined, gone);
    assert.deepEqual(await stored(), g.expectedIds());
  });

  it('an expired delta token (410 Gone) re-enumerates the drive from the Location Graph gives', async () => {
    g.expiredBelow = Number.MAX_SAFE_INTEGER;
    const added = g.addFile('b!eng-specs', 'Events spec.md', Buffer.from('# Events\n\nEvery event has an id and a timestamp.\n'));
    g.fake.requests.length = 0;
    const c = await sync(false);
    g.expiredBelow = 0;
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(c.sync_runs[0].added, 1);
    assert.ok(g.fake.requests.some((r) => r.status === 410));
    assert.ok(await doc(`item:${added.driveId}:${added.id}`));
    assert.deepEqual(await stored(), g.expectedIds());
    // The drives got fresh deltaLinks: the next sync asks with tokens again and changes nothing.
    const again = await sync(false);
    assert.deepEqual([again.sync_runs[0].added, again.sync_runs[0].deleted], [0, 0]);
  });

  it('a file that cannot be parsed is skipped and named; a file past max_file_size_mb is not downloaded', async () => {
    const broken = g.addFile('b!mkt-docs', 'broken.pdf', Buffer.from('%PDF-1.4 this is not a pdf'));
    const huge = g.addFile('b!mkt-docs', 'huge.txt', Buffer.from('small really'), { size: 30 * 1024 * 1024 });
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.match(String(c.status_reason), /1 skipped, stored versions kept: item:b!mkt-docs:.*could not parse/);
    assert.equal(await doc(`item:${broken.driveId}:${broken.id}`), undefined);
    assert.equal(await doc(`item:${huge.driveId}:${huge.id}`), undefined);
    assert.equal(g.downloads.some((d) => d.itemId === huge.id), false);
    assert.deepEqual(await stored(), g.expectedIds(undefined, { unreadable: ['broken.pdf'] }));
  });

  it('a Graph 5xx fails the attempt, keeps what is stored, and the retry completes', async () => {
    const before = await stored();
    g.addFile('b!arc-docs', 'Retro.md', Buffer.from('# Retro\n\nShip smaller changes.\n'));
    g.fake.failNext(1, 503, (r) => r.path === '/v1.0/drives/b!eng-docs/root/delta');
    assert.equal((await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin })).statusCode, 202);
    await worker.drain();
    const [job] = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = $1 AND payload->>'connectorId' = $2 ORDER BY created_at DESC LIMIT 1", [SYNC_JOB_KIND, id])).rows;
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(job?.last_error ?? '', /Microsoft Graph answered HTTP 503/);
    const during = await stored();
    assert.ok(before.every((x) => during.includes(x)), 'nothing stored was lost');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = await get();
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), g.expectedIds(undefined, { unreadable: ['broken.pdf'] }));
  });

  it('selected sites only, with app-only credentials (client credentials grant): no OneDrive, site ACLs', async () => {
    const eng = g.sites[1];
    assert.ok(eng);
    const { connector_id: app } = await create({ ...APP }, { authority_url: g.url, site_urls: [eng.webUrl], include_onedrive: true, file_extensions: ['.md', '.TXT'] });
    const c0 = await get(app);
    assert.equal(c0.status, 'connected', JSON.stringify(c0));
    assert.equal(c0.status_reason, `authenticated as app ${APP.client_id} on contoso.sharepoint.com`);
    const c = await sync(true, app);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const want = g.expectedIds(['b!eng-docs', 'b!eng-specs']).filter((x) => !x.endsWith(g.byName('Architecture.html').id));
    assert.deepEqual(await stored(app), want);
    assert.ok(want.length >= 2);
    for (const x of want) assert.deepEqual((await doc(x, app))?.acl, { groups: [`sharepoint:site:${eng.id}`] }, x);
    assert.ok(g.appTokens.length >= 1);
    assert.ok(g.fake.requests.some((r) => r.path === '/v1.0/sites/contoso.sharepoint.com:/sites/engineering'));
    assert.equal(g.fake.requests.some((r) => r.path === '/v1.0/me/drive' && r.token?.startsWith('app-token')), false);
  });

  it('refuses wrong app credentials and a site that does not resolve, saying why', async () => {
    const wrong = await create({ ...APP, client_secret: 'not-it' }, { authority_url: g.url });
    const w = await get(wrong.connector_id);
    assert.equal(w.status, 'error');
    assert.match(w.status_reason, /rejected the credentials: .*invalid_client: AADSTS7000215: Invalid client secret provided/);
    assert.doesNotMatch(w.status_reason, /not-it/);
    const missing = await create({ access_token: USER_TOKEN }, { site_urls: ['https://contoso.sharepoint.com/sites/nowhere'] });
    const m = await get(missing.connector_id);
    assert.equal(m.status, 'error');
    assert.match(m.status_reason, /settings are invalid: site_urls: Microsoft Graph has no site https:\/\/contoso\.sharepoint\.com\/sites\/nowhere/);
  });

  it('answers 400 naming the field for unknown settings, a bad site URL, an unreadable extension and half app credentials', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ access_token: 'x' }, { sites: ['a'] }, 'settings'],
      [{ access_token: 'x' }, { site_urls: ['http://contoso.sharepoint.com/sites/x'] }, 'settings.site_urls.0'],
      [{ access_token: 'x' }, { site_urls: ['contoso.sharepoint.com/sites/x'] }, 'settings.site_urls.0'],
      [{ access_token: 'x' }, { file_extensions: ['.png'] }, 'settings.file_extensions.0'],
      [{ tenant_id: 't', client_id: 'c' }, {}, 'credentials.client_secret'],
    ];
    for (const [credentials, settings, path] of cases) {
      const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'sharepoint', display_name: 'bad', credentials, settings } });
      assert.equal(r.statusCode, 400, `${JSON.stringify(settings)}: ${r.body}`);
      const paths = (r.json().error.details.problems as { path: string }[]).map((p) => p.path);
      assert.ok(paths.includes(path), `${path} in ${JSON.stringify(r.json().error)}`);
    }
  });

  it('connects through Microsoft identity platform OAuth (organizations, Graph scopes)', async () => {
    const created = await create(undefined);
    assert.ok(created.oauth_url);
    const u = new URL(created.oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize');
    assert.equal(u.searchParams.get('scope'), 'offline_access User.Read Sites.Read.All Files.Read.All GroupMember.Read.All');
    assert.equal(u.searchParams.get('client_id'), 'spo-client');
    const state = u.searchParams.get('state') ?? '';
    const done = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(state)}&code=graph-auth-code` });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await get(created.connector_id)).status, 'connected');
    // The exchanged token is what the sync sends to Graph.
    const c = await sync(true, created.connector_id);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.ok(g.fake.requests.some((r) => r.path === '/v1.0/me/drive' && r.token === 'graph-oauth-token'));
    assert.deepEqual(await stored(created.connector_id), g.expectedIds(undefined, { unreadable: ['broken.pdf'] }));
  });

  it('a revoked token puts the connector in error with what Graph said', async () => {
    g.fake.revoke(USER_TOKEN);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /the vendor rejected the credentials: Microsoft Graph answered 401 .*InvalidAuthenticationToken.*reconnect with OAuth/);
      assert.equal(c.sync_runs[0].status, 'failed');
    } finally {
      g.fake.allow(USER_TOKEN);
    }
  });
});
