import { cursorPage, type FakeReply, VendorFake } from './kit/index.ts';

/**
 * A local Coda API fake (base path `/apis/v1`), speaking the wire format of coda.io/developers/apis/v1: `GET /whoami`;
 * `GET /docs` (`limit`, opaque `pageToken` answered in `nextPageToken`, `workspaceId`); `GET /docs/{docId}/pages`;
 * `POST /docs/{docId}/pages/{pageId}/export` (`{outputFormat}` → 202 `{id, status: 'inProgress', href}`) and
 * `GET …/export/{requestId}` (`inProgress` for the first `exportPolls` polls, then `complete` with a `downloadLink`);
 * the download itself is a signed URL outside the API (`/files/export/{id}.md`) that refuses an Authorization header,
 * as signed storage URLs do; `GET /docs/{docId}/tables` (`tableTypes`); `GET /docs/{docId}/tables/{tableId}/rows`
 * (`useColumnNames`, `valueFormat=simple`, `limit`, `pageToken`). Bearer API tokens; `{statusCode, statusMessage,
 * message}` error bodies.
 */
export interface CPage {
  id: string;
  name: string;
  subtitle?: string;
  contentType: 'canvas' | 'embed' | 'syncPage';
  parentId?: string;
  createdAt: string;
  updatedAt: string;
  createdBy?: { name: string; email: string };
  /** What the Markdown export answers (not on the wire otherwise). */
  markdown: string;
  /** When set, the page's exports end `failed` with this error. */
  exportError?: string;
}
export interface CRow {
  id: string;
  name: string;
  index: number;
  createdAt: string;
  updatedAt: string;
  values: Record<string, unknown>;
}
export interface CTable {
  id: string;
  name: string;
  tableType: 'table' | 'view';
  rows: CRow[];
}
export interface CDoc {
  id: string;
  name: string;
  owner: string;
  ownerName: string;
  workspaceId: string;
  folder: { id: string; name: string };
  createdAt: string;
  updatedAt: string;
  pages: CPage[];
  tables: CTable[];
}
export interface CodaData {
  user: { name: string; loginId: string; workspaceId: string };
  docs: CDoc[];
}

export interface FakeCoda {
  /** The API base (`…/apis/v1`), what ATRIUM_CONNECTOR_API_URLS.coda is set to. */
  readonly url: string;
  readonly token: string;
  readonly data: CodaData;
  readonly fake: VendorFake;
  /** A timestamp later than every earlier one. */
  tick(): string;
  doc(id: string): CDoc;
  /** Bumps the doc's `updatedAt` (Coda does on every edit); returns the new time. */
  touch(doc: CDoc): string;
  addRow(docId: string, tableId: string, values: Record<string, unknown>): CRow;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 12, 8, 0, 0);
const CODA = 'https://coda.io';

export function seedCoda(): CodaData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return new Date(at).toISOString();
  };
  const ada = { name: 'Ada Lovelace', email: 'Ada@Acme.test' };
  const page = (id: string, name: string, markdown: string, extra: Partial<CPage> = {}): CPage => {
    const t = next();
    return { id, name, contentType: 'canvas', createdAt: t, updatedAt: t, createdBy: ada, markdown, ...extra };
  };
  const row = (id: string, index: number, name: string, values: Record<string, unknown>): CRow => {
    const t = next();
    return { id, index, name, createdAt: t, updatedAt: t, values };
  };
  const handbookCreated = next();
  const offsiteCreated = next();
  return {
    user: { name: 'Ada Lovelace', loginId: 'ada@acme.test', workspaceId: 'ws-Acme01' },
    docs: [
      {
        id: 'hAnDbOoK01',
        name: 'Engineering Handbook',
        owner: 'Ada@Acme.test',
        ownerName: 'Ada Lovelace',
        workspaceId: 'ws-Acme01',
        folder: { id: 'fl-Eng', name: 'Engineering' },
        createdAt: handbookCreated,
        updatedAt: handbookCreated,
        pages: [
          page('canvas-onboard', 'Onboarding', '# Onboarding\n\nWelcome aboard!   \n\n\n\nAsk **Grace** for a laptop and read the *incident runbook*.\n', { subtitle: 'Your first week' }),
          page('canvas-runbook', 'Runbooks', '## Paging\n\n- Acknowledge within 5 minutes\n- Escalate to the duty manager after 30 minutes\n', { parentId: 'canvas-onboard' }),
          page('embed-status', 'Status page', '', { contentType: 'embed' }),
        ],
        tables: [
          {
            id: 'grid-services',
            name: 'Services',
            tableType: 'table',
            rows: [
              row('i-svc1', 1, 'billing-api', { Service: 'billing-api', Owner: 'Grace Hopper', Tier: 1, Languages: ['Go', 'SQL'], 'On call': true, Notes: 'Handles invoices.\nPages the payments team.' }),
              row('i-svc2', 2, 'search', { Service: 'search', Owner: 'Ada Lovelace', Tier: 2, Languages: ['Rust'], 'On call': false, Notes: '' }),
              row('i-svc3', 3, 'auth', { Service: 'auth', Owner: 'Grace Hopper', Tier: 1, Languages: ['TypeScript'], 'On call': true }),
            ],
          },
          { id: 'view-tier1', name: 'Tier 1 services', tableType: 'view', rows: [] },
        ],
      },
      {
        id: 'oFfSiTe002',
        name: 'Team Offsite',
        owner: 'grace@acme.test',
        ownerName: 'Grace Hopper',
        workspaceId: 'ws-Acme01',
        folder: { id: 'fl-Team', name: 'Team' },
        createdAt: offsiteCreated,
        updatedAt: offsiteCreated,
        pages: [page('canvas-agenda', 'Agenda', '# Agenda\n\nDay one: roadmap review at the lighthouse.\n')],
        tables: [
          {
            id: 'grid-people',
            name: 'Attendees',
            tableType: 'table',
            rows: [row('i-p1', 1, 'Linus', { Name: 'Linus', Diet: 'vegetarian' }), row('i-p2', 2, 'Barbara', { Name: 'Barbara', Diet: 'none' })],
          },
        ],
      },
    ],
  };
}

const error = (statusCode: number, statusMessage: string, message = statusMessage): FakeReply => ({ status: statusCode, json: { statusCode, statusMessage, message } });

export async function startFakeCoda(data: CodaData = seedCoda(), opts: { docPage?: number; rowPage?: number; exportPolls?: number } = {}): Promise<FakeCoda> {
  const token = '0f3c9a6e-1b2d-4e5f-8a9b-0c1d2e3f4a5b';
  const fake = new VendorFake({
    name: 'Coda',
    tokens: [token],
    publicPath: (p) => p.startsWith('/files/'),
    unauthorized: () => error(401, 'Unauthorized', 'Unauthorized'),
    rateLimited: () => error(429, 'Too Many Requests'),
    serverError: (status) => error(status, 'Internal Server Error'),
  });
  let last = Date.now();
  const tick = () => {
    last = Math.max(Date.now(), last + 1000);
    return new Date(last).toISOString();
  };
  const exports = new Map<string, { page: CPage; polls: number }>();
  let exportIds = 0;
  const api = '/apis/v1';
  const findDoc = (id: string | undefined) => data.docs.find((d) => d.id === id);
  const docJson = (base: string, d: CDoc) => ({
    id: d.id,
    type: 'doc',
    href: `${base}/docs/${d.id}`,
    browserLink: `${CODA}/d/_d${d.id}`,
    name: d.name,
    owner: d.owner,
    ownerName: d.ownerName,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    workspace: { id: d.workspaceId, type: 'workspace', browserLink: `${CODA}/docs?workspaceId=${d.workspaceId}` },
    folder: { id: d.folder.id, type: 'folder', browserLink: `${CODA}/docs?folderId=${d.folder.id}`, name: d.folder.name },
    workspaceId: d.workspaceId,
    folderId: d.folder.id,
  });
  const pageRef = (base: string, d: CDoc, p: CPage) => ({ id: p.id, type: 'page', href: `${base}/docs/${d.id}/pages/${p.id}`, browserLink: `${CODA}/d/_d${d.id}/_su${p.id}`, name: p.name });
  fake.route('GET', `${api}/whoami`, () => ({
    json: { name: data.user.name, loginId: data.user.loginId, type: 'user', scoped: false, tokenName: 'Atrium', href: `${fake.url}${api}/whoami`, workspace: { id: data.user.workspaceId, type: 'workspace', browserLink: CODA } },
  }));
  fake.route('GET', `${api}/docs`, (req) => {
    const ws = req.query.get('workspaceId');
    const docs = data.docs.filter((d) => !ws || d.workspaceId === ws);
    const page = cursorPage(docs, req.query.get('pageToken'), Math.min(Number(req.query.get('limit') ?? 25), opts.docPage ?? 100));
    return { json: { items: page.items.map((d) => docJson(`${fake.url}${api}`, d)), href: `${fake.url}${req.url.pathname}`, ...(page.next ? { nextPageToken: page.next } : {}) } };
  });
  fake.route('GET', `${api}/docs/:docId/pages`, (req) => {
    const d = findDoc(req.params.docId);
    if (!d) return error(404, 'Not Found', 'The doc does not exist or you do not have access.');
    const base = `${fake.url}${api}`;
    const items = d.pages.map((p) => {
      const parent = d.pages.find((x) => x.id === p.parentId);
      return {
        ...pageRef(base, d, p),
        subtitle: p.subtitle,
        contentType: p.contentType,
        isHidden: false,
        isEffectivelyHidden: false,
        ...(parent ? { parent: pageRef(base, d, parent) } : {}),
        children: d.pages.filter((x) => x.parentId === p.id).map((x) => pageRef(base, d, x)),
        authors: p.createdBy ? [{ '@context': 'http://schema.org/', '@type': 'Person', ...p.createdBy }] : [],
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
        ...(p.createdBy ? { createdBy: { '@context': 'http://schema.org/', '@type': 'Person', ...p.createdBy } } : {}),
      };
    });
    return { json: { items, href: `${base}/docs/${d.id}/pages` } };
  });
  fake.route('POST', `${api}/docs/:docId/pages/:pageId/export`, (req) => {
    const d = findDoc(req.params.docId);
    const p = d?.pages.find((x) => x.id === req.params.pageId);
    if (!d || !p) return error(404, 'Not Found');
    const format = (req.body as { outputFormat?: string } | undefined)?.outputFormat;
    if (format !== 'markdown' && format !== 'html') return error(400, 'Bad Request', 'outputFormat must be html or markdown');
    if (p.contentType !== 'canvas') return error(400, 'Bad Request', 'Only canvas pages can be exported');
    const id = `exp-${++exportIds}`;
    exports.set(id, { page: p, polls: 0 });
    return { status: 202, json: { id, status: 'inProgress', href: `${fake.url}${api}/docs/${d.id}/pages/${p.id}/export/${id}` } };
  });
  fake.route('GET', `${api}/docs/:docId/pages/:pageId/export/:requestId`, (req) => {
    const e = exports.get(req.params.requestId ?? '');
    if (!e) return error(404, 'Not Found', 'No such export request');
    const href = `${fake.url}${req.url.pathname}`;
    if (e.polls++ < (opts.exportPolls ?? 1)) return { json: { id: req.params.requestId, status: 'inProgress', href } };
    if (e.page.exportError) return { json: { id: req.params.requestId, status: 'failed', href, error: e.page.exportError } };
    return { json: { id: req.params.requestId, status: 'complete', href, downloadLink: `${fake.url}/files/export/${req.params.requestId}.md?signature=fake` } };
  });
  fake.route('GET', '/files/export/:file', (req) => {
    // Signed storage URLs refuse a second credential.
    if (req.headers.authorization) return { status: 400, body: '<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>' };
    const e = exports.get((req.params.file ?? '').replace(/\.md$/, ''));
    if (!e) return { status: 404, body: 'not found' };
    return { headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: e.page.markdown };
  });
  fake.route('GET', `${api}/docs/:docId/tables`, (req) => {
    const d = findDoc(req.params.docId);
    if (!d) return error(404, 'Not Found');
    const types = req.query.get('tableTypes')?.split(',');
    const base = `${fake.url}${api}`;
    const items = d.tables
      .filter((t) => !types || types.includes(t.tableType))
      .map((t) => ({ id: t.id, type: 'table', tableType: t.tableType, href: `${base}/docs/${d.id}/tables/${t.id}`, browserLink: `${CODA}/d/_d${d.id}#_tu${t.id}`, name: t.name }));
    return { json: { items, href: `${base}/docs/${d.id}/tables` } };
  });
  fake.route('GET', `${api}/docs/:docId/tables/:tableId/rows`, (req) => {
    const d = findDoc(req.params.docId);
    const t = d?.tables.find((x) => x.id === req.params.tableId || x.name === req.params.tableId);
    if (!d || !t) return error(404, 'Not Found');
    if (req.query.get('useColumnNames') !== 'true' || req.query.get('valueFormat') !== 'simple') return error(400, 'Bad Request', 'this fake answers useColumnNames=true&valueFormat=simple only');
    const page = cursorPage(t.rows, req.query.get('pageToken'), Math.min(Number(req.query.get('limit') ?? 200), opts.rowPage ?? 500));
    const base = `${fake.url}${api}`;
    const items = page.items.map((r) => ({
      id: r.id,
      type: 'row',
      href: `${base}/docs/${d.id}/tables/${t.id}/rows/${r.id}`,
      name: r.name,
      index: r.index,
      browserLink: `${CODA}/d/_d${d.id}#_tu${t.id}/_ru${r.id}`,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      values: r.values,
    }));
    return { json: { items, href: `${base}${req.url.pathname}`, ...(page.next ? { nextPageToken: page.next } : {}) } };
  });
  await fake.start();
  let rows = 0;
  const doc = (id: string) => {
    const d = findDoc(id);
    if (!d) throw new Error(`no doc ${id}`);
    return d;
  };
  const touch = (d: CDoc) => {
    d.updatedAt = tick();
    return d.updatedAt;
  };
  return {
    get url() {
      return `${fake.url}${api}`;
    },
    token,
    data,
    fake,
    tick,
    doc,
    touch,
    addRow(docId, tableId, values) {
      const d = doc(docId);
      const t = d.tables.find((x) => x.id === tableId);
      if (!t) throw new Error(`no table ${tableId}`);
      const at = touch(d);
      const r: CRow = { id: `i-new${++rows}`, index: t.rows.length + 1, name: String(Object.values(values)[0] ?? ''), createdAt: at, updatedAt: at, values };
      t.rows.push(r);
      return r;
    },
    close: () => fake.close(),
  };
}
