import { randomUUID } from 'node:crypto';
import { makeDocx, makePdf } from '../documents/fixtures.ts';
import { type GraphDirectory, serveGraphGroups } from './graph-groups.ts';
import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Microsoft Graph v1.0 fake for SharePoint and OneDrive (learn.microsoft.com/graph/api: site-get, site-search,
 * drive-list, drive-get, driveitem-delta, driveitem-get-content, user-get; graph/errors; graph/throttling), under
 * `/v1.0`: bearer tokens; `GET /me`, `/me/drive`, `/sites?search=*` (paged by `@odata.nextLink`), `/sites/root`,
 * `/sites/{id}`, `/sites/{hostname}:/{path}`, `/sites/{id}/drives`, `/drives/{id}/root/delta` (no token: the drive's
 * current items, folders before their children; `?token=`: what changed after it, deletions as `deleted` facets without
 * `name`, as OneDrive for Business sends them; `$top` pages with `@odata.nextLink`, the last page carries
 * `@odata.deltaLink`; an expired token answers 410 Gone with a `Location` starting a fresh enumeration; items carry no
 * `parentReference.path`, as the delta remarks say), `/drives/{d}/items/{i}/content` (302 to a pre-authenticated
 * `/download/…` URL on the same fake, which needs no token). Errors are `{ error: { code, message } }`; throttling is
 * 429 `activityLimitReached` with Retry-After. `POST /{tenant}/oauth2/v2.0/token` is the identity platform's token
 * endpoint (client_credentials for app-only, authorization_code and refresh_token for delegated OAuth).
 */
export interface FakeUser {
  readonly id: string;
  readonly displayName: string;
  readonly email: string;
}
export interface FakeSite {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
  readonly webUrl: string;
}
export interface FakeDrive {
  readonly id: string;
  readonly name: string;
  readonly driveType: 'documentLibrary' | 'business';
  readonly webUrl: string;
  readonly siteId: string | null;
  readonly owner: FakeUser | null;
  /** A group-connected site's library: its owner is the site's Microsoft 365 group. */
  readonly ownerGroup?: { id: string; displayName: string; email: string };
}
export interface FakeItem {
  readonly id: string;
  readonly driveId: string;
  name: string;
  parentId: string | null;
  readonly kind: 'root' | 'folder' | 'file';
  bytes: Buffer;
  /** Reported size (a file's byte length unless set, to test the size limit without big buffers). */
  size?: number;
  mimeType: string;
  readonly createdBy: FakeUser;
  lastModifiedBy: FakeUser;
  readonly createdDateTime: string;
  lastModifiedDateTime: string;
  shared?: { scope: 'users' | 'organization' | 'anonymous' };
  deleted: boolean;
  /** The change sequence number: a delta token `n` reports items with seq > n. */
  seq: number;
}

export const USER_TOKEN = 'graph-user-token';
export const APP = { tenant_id: 'contoso.onmicrosoft.com', client_id: '11111111-2222-3333-4444-555555555555', client_secret: 'app-secret-value' };

const MIME: Record<string, string> = {
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.pdf': 'application/pdf',
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.png': 'image/png',
};

export interface FakeGraph {
  readonly url: string;
  /** What ATRIUM_CONNECTOR_API_URLS points the kind at. */
  readonly graphUrl: string;
  readonly fake: VendorFake;
  readonly me: FakeUser;
  readonly users: readonly FakeUser[];
  readonly sites: FakeSite[];
  readonly drives: FakeDrive[];
  readonly items: FakeItem[];
  /** Delta tokens at or below this sequence number answer 410 Gone. */
  expiredBelow: number;
  /** Downloads of pre-authenticated URLs, and whether each carried an Authorization header. */
  readonly downloads: { itemId: string; authorization: boolean }[];
  /** App-only tokens issued by the client_credentials grant. */
  readonly appTokens: string[];
  /** Entra ID users and groups (`/groups/{id}/transitiveMembers`): Marketing's site group holds Ada and the nested Campaign team (Bob). */
  readonly directory: GraphDirectory;
  item(id: string): FakeItem;
  byName(name: string): FakeItem;
  addFile(driveId: string, name: string, bytes: Buffer, opts?: { parentId?: string; by?: FakeUser; size?: number }): FakeItem;
  updateFile(id: string, bytes: Buffer, name?: string): FakeItem;
  remove(id: string): FakeItem;
  /** The `item:<drive>:<item>` ids the connector should hold for these drives (live files of indexable types). */
  expectedIds(driveIds?: readonly string[], opts?: { maxBytes?: number; unreadable?: readonly string[] }): string[];
  close(): Promise<void>;
}

const READABLE = ['.md', '.markdown', '.mdx', '.txt', '.text', '.rst', '.log', '.csv', '.html', '.htm', '.xhtml', '.pdf', '.docx'];

export async function startFakeGraph(): Promise<FakeGraph> {
  let seq = 0;
  let minute = 0;
  const tick = () => new Date(Date.UTC(2026, 2, 1, 8, minute++)).toISOString();
  const ada: FakeUser = { id: 'u-ada', displayName: 'Ada Lovelace', email: 'Ada.Lovelace@contoso.com' };
  const bob: FakeUser = { id: 'u-bob', displayName: 'Bob Park', email: 'bob@contoso.com' };
  const host = 'https://contoso.sharepoint.com';
  const site = (slug: string, displayName: string, n: number): FakeSite => ({
    id: `contoso.sharepoint.com,${n}0000000-0000-4000-8000-000000000000,${n}1111111-1111-4111-8111-111111111111`,
    name: slug,
    displayName,
    webUrl: `${host}/sites/${slug}`,
  });
  const sites = [site('marketing', 'Marketing', 1), site('engineering', 'Engineering', 2), site('archive', 'Archive', 3)];
  const [mkt, eng, arc] = sites as [FakeSite, FakeSite, FakeSite];
  const lib = (id: string, s: FakeSite, name: string, path: string): FakeDrive => ({ id, name, driveType: 'documentLibrary', webUrl: `${s.webUrl}/${path}`, siteId: s.id, owner: null });
  const onedrive: FakeDrive = { id: 'b!onedrive-ada', name: 'OneDrive', driveType: 'business', webUrl: 'https://contoso-my.sharepoint.com/personal/ada_contoso_com/Documents', siteId: null, owner: ada };
  const mktGroup = { id: 'g-marketing', displayName: 'Marketing', email: 'marketing@contoso.com' };
  const drives = [{ ...lib('b!mkt-docs', mkt, 'Documents', 'Shared%20Documents'), ownerGroup: mktGroup }, lib('b!eng-docs', eng, 'Documents', 'Shared%20Documents'), lib('b!eng-specs', eng, 'Specs', 'Specs'), lib('b!arc-docs', arc, 'Documents', 'Shared%20Documents'), onedrive];
  const items: FakeItem[] = [];
  const downloads: { itemId: string; authorization: boolean }[] = [];
  const appTokens: string[] = [];
  const blobs = new Map<string, string>();
  const expiredBelow = { value: 0 };

  const driveOf = (id: string) => {
    const d = drives.find((x) => x.id === id);
    if (!d) throw new Error(`no drive ${id}`);
    return d;
  };
  const rootOf = (driveId: string) => {
    const r = items.find((i) => i.driveId === driveId && i.kind === 'root');
    if (!r) throw new Error(`no root in ${driveId}`);
    return r;
  };
  const pathOf = (i: FakeItem): string => {
    const parent = i.parentId ? items.find((x) => x.id === i.parentId) : undefined;
    if (!parent || parent.kind === 'root') return i.name;
    return `${pathOf(parent)}/${i.name}`;
  };
  const add = (driveId: string, kind: FakeItem['kind'], name: string, bytes: Buffer, opts: { parentId?: string; by?: FakeUser; size?: number; shared?: FakeItem['shared'] } = {}): FakeItem => {
    const t = tick();
    const by = opts.by ?? ada;
    const ext = name.slice(name.lastIndexOf('.')).toLowerCase();
    const item: FakeItem = {
      id: `01${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`,
      driveId,
      name,
      parentId: kind === 'root' ? null : (opts.parentId ?? rootOf(driveId).id),
      kind,
      bytes,
      ...(opts.size !== undefined ? { size: opts.size } : {}),
      mimeType: MIME[ext] ?? 'application/octet-stream',
      createdBy: by,
      lastModifiedBy: by,
      createdDateTime: t,
      lastModifiedDateTime: t,
      ...(opts.shared ? { shared: opts.shared } : {}),
      deleted: false,
      seq: ++seq,
    };
    items.push(item);
    return item;
  };
  for (const d of drives) add(d.id, 'root', 'root', Buffer.alloc(0));
  const text = (s: string) => Buffer.from(s, 'utf8');

  // Marketing: a Word document in a folder, a PDF, Markdown, an image (not indexed) and a file past the size limit.
  const campaigns = add('b!mkt-docs', 'folder', 'Campaigns', Buffer.alloc(0));
  add('b!mkt-docs', 'file', 'Launch plan.docx', await makeDocx('Spring launch', ['The spring launch starts on March 3 with a webinar.', 'Budget owner: Bob Park.']), { parentId: campaigns.id, by: bob });
  add('b!mkt-docs', 'file', 'Brand guide.pdf', makePdf(['Brand guide', 'Use the teal logo on dark backgrounds.']), { shared: { scope: 'organization' } });
  add('b!mkt-docs', 'file', 'notes.md', text('# Marketing notes\n\nCompetitor pricing review is due Friday.\n'));
  add('b!mkt-docs', 'file', 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  // Engineering: runbooks in a nested folder, an HTML page, and a spec in a second library.
  const runbooks = add('b!eng-docs', 'folder', 'Runbooks', Buffer.alloc(0));
  const deploy = add('b!eng-docs', 'folder', 'Deploy', Buffer.alloc(0), { parentId: runbooks.id });
  add('b!eng-docs', 'file', 'Deploy.md', text('# Deploying\n\nRun the canary for thirty minutes before promoting the release.\n'), { parentId: deploy.id });
  add('b!eng-docs', 'file', 'Rollback.txt', text('Rollback: revert the release tag and redeploy the previous build.'), { parentId: runbooks.id, by: bob });
  add('b!eng-docs', 'file', 'Architecture.html', text('<html><head><title>Architecture</title></head><body><h1>Architecture</h1><p>The ingest tier writes to PostgreSQL.</p></body></html>'));
  add('b!eng-specs', 'file', 'API spec.md', text('# API spec\n\nEvery endpoint answers JSON errors with a stable code.\n'));
  add('b!arc-docs', 'file', 'Old plan.txt', text('The 2019 plan, kept for reference.'));
  // Ada's OneDrive.
  add(onedrive.id, 'file', 'My notes.txt', text('Remember the quarterly access review of the finance share.'));

  const fake = new VendorFake({
    name: 'Microsoft Graph',
    tokens: [USER_TOKEN],
    publicPath: (p) => p.startsWith('/download/') || p.endsWith('/oauth2/v2.0/token'),
    unauthorized: () => ({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize"' },
      json: { error: { code: 'InvalidAuthenticationToken', message: 'Access token validation failure. Invalid audience.', innerError: { 'request-id': randomUUID() } } },
    }),
    rateLimited: () => ({ status: 429, json: { error: { code: 'activityLimitReached', message: 'The request has been throttled', innerError: { code: 'throttledRequest' } } } }),
    serverError: (status) => ({ json: { error: { code: status === 503 ? 'serviceNotAvailable' : 'generalException', message: 'An unspecified error has occurred.' } } }),
  });
  const notFound = (what: string): FakeReply => ({ status: 404, json: { error: { code: 'itemNotFound', message: `The resource could not be found: ${what}` } } });
  const base = () => `${fake.url}/v1.0`;
  const isApp = (req: FakeRequest) => req.token !== null && appTokens.includes(req.token);
  const identity = (u: FakeUser) => ({ user: { id: u.id, displayName: u.displayName, email: u.email } });
  const siteJson = (s: FakeSite) => ({ id: s.id, name: s.name, displayName: s.displayName, webUrl: s.webUrl, siteCollection: { hostname: 'contoso.sharepoint.com' }, createdDateTime: '2025-01-01T00:00:00Z' });
  const driveJson = (d: FakeDrive) => ({
    id: d.id,
    name: d.name,
    driveType: d.driveType,
    webUrl: d.webUrl,
    ...(d.owner ? { owner: identity(d.owner) } : d.ownerGroup ? { owner: { group: d.ownerGroup } } : {}),
  });
  const directory: GraphDirectory = {
    users: [
      { id: ada.id, displayName: ada.displayName, mail: ada.email, userPrincipalName: 'ada@contoso.com' },
      { id: bob.id, displayName: bob.displayName, mail: null, userPrincipalName: 'bob@contoso.com' },
      { id: 'u-cy', displayName: 'Cy Young', mail: 'cy@contoso.com', userPrincipalName: 'cy@contoso.com' },
    ],
    groups: { 'g-marketing': [ada.id, 'g-campaign'], 'g-campaign': [bob.id] },
    refused: false,
  };
  serveGraphGroups(fake, directory);
  const itemJson = (i: FakeItem) => {
    const d = driveOf(i.driveId);
    const parentReference = { driveType: d.driveType, driveId: d.id, ...(i.parentId ? { id: i.parentId } : {}) };
    if (i.deleted) return { id: i.id, deleted: { state: 'deleted' }, parentReference: { driveType: d.driveType, driveId: d.id, id: rootOf(d.id).id } };
    const common = {
      id: i.id,
      name: i.name,
      createdDateTime: i.createdDateTime,
      lastModifiedDateTime: i.lastModifiedDateTime,
      createdBy: identity(i.createdBy),
      lastModifiedBy: identity(i.lastModifiedBy),
      parentReference,
      ...(i.shared ? { shared: { scope: i.shared.scope, owner: identity(i.createdBy) } } : {}),
    };
    if (i.kind === 'root') return { ...common, webUrl: d.webUrl, root: {}, folder: { childCount: items.filter((x) => x.parentId === i.id && !x.deleted).length } };
    const webUrl = i.name.endsWith('.docx')
      ? `${d.webUrl.replace(/\/[^/]+$/, '')}/_layouts/15/Doc.aspx?sourcedoc=%7B${i.id}%7D&file=${encodeURIComponent(i.name)}&action=default`
      : `${d.webUrl}/${pathOf(i).split('/').map(encodeURIComponent).join('/')}`;
    if (i.kind === 'folder') return { ...common, webUrl, folder: { childCount: items.filter((x) => x.parentId === i.id && !x.deleted).length } };
    return { ...common, webUrl, size: i.size ?? i.bytes.length, file: { mimeType: i.mimeType, hashes: { quickXorHash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' } } };
  };
  const page = (req: FakeRequest, all: unknown[], linkBase: string, size: number, extra: Record<string, unknown> = {}) => {
    const skip = Number(req.query.get('$skiptoken') ?? '0');
    const slice = all.slice(skip, skip + size);
    const more = skip + size < all.length;
    const sep = linkBase.includes('?') ? '&' : '?';
    return { json: { value: slice, ...(more ? { '@odata.nextLink': `${linkBase}${sep}$skiptoken=${skip + size}` } : extra) } };
  };

  fake.route('GET', '/v1.0/me', (req) =>
    isApp(req)
      ? { status: 400, json: { error: { code: 'BadRequest', message: '/me request is only valid with delegated authentication flow.' } } }
      : { json: { id: ada.id, displayName: ada.displayName, userPrincipalName: 'ada@contoso.com', mail: ada.email } },
  );
  fake.route('GET', '/v1.0/me/drive', (req) => (isApp(req) ? { status: 400, json: { error: { code: 'BadRequest', message: '/me request is only valid with delegated authentication flow.' } } } : { json: driveJson(onedrive) }));
  // Site search pages two at a time, so the connector follows @odata.nextLink.
  fake.route('GET', '/v1.0/sites', (req) => {
    if (req.query.get('search') === null && !req.query.get('$skiptoken')) return { status: 400, json: { error: { code: 'invalidRequest', message: 'Listing sites needs search' } } };
    return page(req, sites.map(siteJson), `${base()}/sites?search=*`, 2);
  });
  fake.route('GET', '/v1.0/sites/root', () => ({ json: siteJson(mkt) }));
  fake.route('GET', '/v1.0/sites/:id/drives', (req) => {
    const s = sites.find((x) => x.id === req.params.id);
    if (!s) return notFound(`site ${req.params.id}`);
    return { json: { value: drives.filter((d) => d.siteId === s.id).map(driveJson) } };
  });
  fake.route('GET', '/v1.0/sites/:ref*', (req) => {
    const ref = req.params.ref ?? '';
    const colon = ref.indexOf(':/');
    const s = colon >= 0 ? sites.find((x) => x.webUrl === `https://${ref.slice(0, colon)}${ref.slice(colon + 1).replace(/:$/, '')}`) : sites.find((x) => x.id === ref);
    return s ? { json: siteJson(s) } : notFound(`site ${ref}`);
  });
  fake.route('GET', '/v1.0/drives/:d/root/delta', (req) => {
    const d = drives.find((x) => x.id === req.params.d);
    if (!d) return notFound(`drive ${req.params.d}`);
    const fresh = `${base()}/drives/${encodeURIComponent(d.id)}/root/delta`;
    const token = req.query.get('token');
    const since = token === null ? 0 : Number(token);
    if (token !== null && (!Number.isInteger(since) || since <= expiredBelow.value)) {
      return { status: 410, headers: { location: fresh }, json: { error: { code: 'resyncRequired', message: 'Resync required. Replace any local items with the server\'s version (including deletes).', innerError: { code: 'resyncChangesApplyDifferences' } } } };
    }
    const inDrive = items.filter((i) => i.driveId === d.id);
    const changed = since === 0 ? inDrive.filter((i) => !i.deleted) : inDrive.filter((i) => i.seq > since).sort((a, b) => a.seq - b.seq);
    const top = Number(req.query.get('$top') ?? '200');
    const link = token === null ? `${fresh}?$top=${top}` : `${fresh}?token=${since}&$top=${top}`;
    return page(req, changed.map(itemJson), link, top, { '@odata.deltaLink': `${fresh}?token=${seq}` });
  });
  fake.route('GET', '/v1.0/drives/:d/items/:i/content', (req) => {
    const i = items.find((x) => x.driveId === req.params.d && x.id === req.params.i && !x.deleted && x.kind === 'file');
    if (!i) return notFound(`item ${req.params.i}`);
    const key = randomUUID();
    blobs.set(key, i.id);
    return { status: 302, headers: { location: `${fake.url}/download/${key}?tempauth=${randomUUID()}` } };
  });
  fake.route('GET', '/download/:key', (req) => {
    const id = blobs.get(req.params.key ?? '');
    const i = id ? items.find((x) => x.id === id) : undefined;
    if (!i) return { status: 401, body: 'expired' };
    downloads.push({ itemId: i.id, authorization: req.headers.authorization !== undefined });
    return { headers: { 'content-type': 'application/octet-stream' }, body: i.bytes };
  });
  fake.route('POST', '/:tenant/oauth2/v2.0/token', (req) => {
    const body = (req.body ?? {}) as Record<string, string>;
    if (body.grant_type === 'client_credentials') {
      if (req.params.tenant !== APP.tenant_id) return { status: 400, json: { error: 'invalid_request', error_description: `AADSTS90002: Tenant '${req.params.tenant}' not found.` } };
      if (body.client_id !== APP.client_id || body.client_secret !== APP.client_secret) {
        return { status: 401, json: { error: 'invalid_client', error_description: "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.\r\nTrace ID: x" } };
      }
      if (body.scope !== 'https://graph.microsoft.com/.default') return { status: 400, json: { error: 'invalid_scope', error_description: 'AADSTS1002012: The provided value for scope is not valid.' } };
      const token = `app-token-${appTokens.length + 1}`;
      appTokens.push(token);
      fake.allow(token);
      return { json: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token } };
    }
    if (body.grant_type === 'authorization_code' && body.code === 'graph-auth-code') {
      fake.allow('graph-oauth-token');
      return { json: { token_type: 'Bearer', scope: 'Files.Read.All Sites.Read.All User.Read', expires_in: 3599, access_token: 'graph-oauth-token', refresh_token: 'graph-refresh' } };
    }
    return { status: 400, json: { error: 'invalid_grant', error_description: 'AADSTS70000: The provided value for the code parameter is not valid.' } };
  });
  await fake.start();

  const find = (id: string) => {
    const i = items.find((x) => x.id === id);
    if (!i) throw new Error(`no item ${id}`);
    return i;
  };
  const descendants = (id: string): FakeItem[] => items.filter((x) => x.parentId === id).flatMap((x) => [x, ...descendants(x.id)]);
  return {
    url: fake.url,
    graphUrl: `${fake.url}/v1.0`,
    fake,
    me: ada,
    users: [ada, bob],
    sites,
    drives,
    items,
    get expiredBelow() {
      return expiredBelow.value;
    },
    set expiredBelow(v: number) {
      expiredBelow.value = v;
    },
    downloads,
    appTokens,
    directory,
    item: find,
    byName(name) {
      const i = items.find((x) => x.name === name && !x.deleted);
      if (!i) throw new Error(`no item named ${name}`);
      return i;
    },
    addFile: (driveId, name, bytes, opts = {}) => add(driveId, 'file', name, bytes, opts),
    updateFile(id, bytes, name) {
      const i = find(id);
      i.bytes = bytes;
      if (name) i.name = name;
      i.lastModifiedDateTime = tick();
      i.seq = ++seq;
      return i;
    },
    remove(id) {
      const i = find(id);
      // SharePoint reports a deleted folder's descendants as deleted too.
      for (const x of [i, ...descendants(id)]) {
        x.deleted = true;
        x.seq = ++seq;
      }
      return i;
    },
    expectedIds(driveIds = drives.map((d) => d.id), opts = {}) {
      return items
        .filter((i) => driveIds.includes(i.driveId) && i.kind === 'file' && !i.deleted)
        .filter((i) => READABLE.includes(i.name.slice(i.name.lastIndexOf('.')).toLowerCase()))
        .filter((i) => (i.size ?? i.bytes.length) <= (opts.maxBytes ?? 25 * 1024 * 1024))
        .filter((i) => !(opts.unreadable ?? []).includes(i.name))
        .map((i) => `item:${i.driveId}:${i.id}`)
        .sort();
    },
    close: () => fake.close(),
  };
}
