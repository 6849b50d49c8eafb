import { makeDocx, makePdf } from '../documents/fixtures.ts';
import { cursorPage, type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Box API v2 fake (developer.box.com/reference), on the kit's VendorFake: `GET /2.0/users/me`,
 * `/2.0/folders/{id}` and `/2.0/files/{id}` (the `fields` parameter: the mini representation plus the fields asked
 * for), `/2.0/folders/{id}/items` (marker-based with `usemarker=true`: `next_marker` null after the last page; else
 * offset-based with `total_count`; trashed items are not listed), `/2.0/folders/{id}/collaborations`,
 * `/2.0/files/{id}/content` (302 to a download URL on the fake's own "dl" host, which refuses an Authorization
 * header, as a token must not leave api.box.com), `/2.0/events` (`stream_type`, `stream_position` a 64-bit integer or
 * `now`, `limit`; `next_stream_position` sent as a bare JSON number larger than 2^53, as Box does) and the OAuth 2.0
 * token endpoint `/oauth2/token`. Errors in Box's client-error shape `{type: 'error', status, code, message,
 * help_url, request_id}`; 401 with an empty body and `WWW-Authenticate`; 429 `rate_limit_exceeded` with Retry-After.
 */
export interface FakeBoxUser {
  id: string;
  name: string;
  login: string;
}

export interface FakeBoxCollaboration {
  id: string;
  accessible_by: { type: 'user'; id: string; name: string; login: string } | { type: 'group'; id: string; name: string };
  role: string;
  status: 'accepted' | 'pending' | 'rejected';
}

export interface FakeBoxFolder {
  id: string;
  name: string;
  parentId: string | null;
  owner: FakeBoxUser;
  trashed: boolean;
  collaborations: FakeBoxCollaboration[];
  created_at: string;
  modified_at: string;
}

export interface FakeBoxFile {
  id: string;
  name: string;
  parentId: string;
  content: Buffer;
  /** Declared size (defaults to the content's length). */
  size?: number;
  description?: string;
  created_at: string;
  modified_at: string;
  created_by: FakeBoxUser;
  modified_by: FakeBoxUser;
  owned_by: FakeBoxUser;
  shared_link: { access: 'open' | 'company' | 'collaborators' } | null;
  trashed: boolean;
  version: number;
  /** The download answers 202 with Retry-After (Box is still processing the upload). */
  notReady?: boolean;
}

export interface FakeBoxEvent {
  event_id: string;
  event_type: string;
  created_at: string;
  source: Record<string, unknown> | null;
}

export interface FakeBoxData {
  me: FakeBoxUser;
  folders: FakeBoxFolder[];
  files: FakeBoxFile[];
  events: FakeBoxEvent[];
}

export const STREAM_BASE = 1152922976252290000n;

const boxError = (status: number, code: string, message: string): FakeReply => ({
  status,
  json: { type: 'error', status, code, help_url: 'http://developers.box.com/docs/#errors', message, request_id: `req${status}${code.length}` },
});
const notFound = (code = 'not_found') => boxError(404, code, code === 'trashed' ? 'Item is trashed' : 'Not Found');
const mini = (u: FakeBoxUser) => ({ type: 'user', id: u.id, name: u.name, login: u.login });
const MINI_FIELDS = ['type', 'id', 'etag', 'sequence_id', 'name', 'sha1', 'file_version'];

export interface FakeBox {
  readonly url: string;
  readonly token: string;
  readonly fake: VendorFake;
  readonly data: FakeBoxData;
  tick(): string;
  addFile(f: Partial<FakeBoxFile> & Pick<FakeBoxFile, 'id' | 'name'>): FakeBoxFile;
  addFolder(f: Partial<FakeBoxFolder> & Pick<FakeBoxFolder, 'id' | 'name'>): FakeBoxFolder;
  /** A new version uploaded (ITEM_UPLOAD). */
  uploadVersion(id: string, content: Buffer): FakeBoxFile;
  renameFile(id: string, name: string): FakeBoxFile;
  moveFile(id: string, parentId: string): FakeBoxFile;
  moveFolder(id: string, parentId: string): FakeBoxFolder;
  trashFile(id: string): FakeBoxFile;
  trashFolder(id: string): FakeBoxFolder;
  /** Deleted for good, with no event the changes stream shows (a full sync notices). */
  purgeFile(id: string): FakeBoxFile;
  addCollaborator(folderId: string, user: FakeBoxUser): void;
  /** Box may send an event twice: the last event is logged again with the same event_id. */
  repeatLastEvent(): void;
  close(): Promise<void>;
}

export function seedBox(tick: () => string): FakeBoxData {
  const ada: FakeBoxUser = { id: '11446498', name: 'Ada Lovelace', login: 'Ada@Atrium.test' };
  const bob: FakeBoxUser = { id: '22558812', name: 'Bob Byte', login: 'bob@atrium.test' };
  const grace: FakeBoxUser = { id: '33669923', name: 'Grace Hopper', login: 'grace@partner.test' };
  const folder = (id: string, name: string, parentId: string | null, extra: Partial<FakeBoxFolder> = {}): FakeBoxFolder => {
    const t = tick();
    return { id, name, parentId, owner: ada, trashed: false, collaborations: [], created_at: t, modified_at: t, ...extra };
  };
  const file = (id: string, name: string, parentId: string, content: Buffer, extra: Partial<FakeBoxFile> = {}): FakeBoxFile => {
    const t = tick();
    return { id, name, parentId, content, created_at: t, modified_at: t, created_by: ada, modified_by: ada, owned_by: ada, shared_link: null, trashed: false, version: 1, ...extra };
  };
  return {
    me: ada,
    folders: [
      folder('0', 'All Files', null),
      folder('1001', 'Engineering', '0', {
        collaborations: [
          { id: 'c-1', accessible_by: { type: 'user', ...bob }, role: 'viewer', status: 'accepted' },
          { id: 'c-2', accessible_by: { type: 'user', ...grace }, role: 'editor', status: 'pending' },
          { id: 'c-3', accessible_by: { type: 'group', id: '777', name: 'Platform team' }, role: 'viewer', status: 'accepted' },
        ],
      }),
      folder('1002', 'Specs', '1001'),
      folder('1003', 'Marketing', '0'),
    ],
    files: [
      file('2001', 'Atlas design.md', '1002', Buffer.from('# Atlas design\r\n\r\nThe Atlas service stores telemetry in columnar shards.\r\n'), {
        created_by: bob,
        description: 'Architecture of the Atlas telemetry store',
      }),
      file('2002', 'Runbook.pdf', '1001', makePdf(['Runbook', 'Page the on-call engineer for sev1 incidents.']), { shared_link: { access: 'open' } }),
      file('2003', 'Brand guide.docx', '1003', Buffer.alloc(0), { shared_link: { access: 'company' } }),
      file('2004', 'notes.txt', '0', Buffer.from('Kickoff moved to Thursday.')),
      file('2005', 'launch.html', '1003', Buffer.from('<html><head><title>Launch</title></head><body><h1>Launch plan</h1><p>Ship the teal logo in March.</p></body></html>')),
      file('2006', 'logo.png', '0', Buffer.from([0x89, 0x50, 0x4e, 0x47])),
      file('2007', 'Huge scan.pdf', '0', makePdf(['Huge']), { size: 50 * 1024 * 1024 }),
      file('2008', 'Old plan.txt', '0', Buffer.from('Old plan'), { trashed: true }),
    ],
    events: [],
  };
}

export async function startFakeBox(opts: { seed?: (tick: () => string) => FakeBoxData; oauthCode?: string } = {}): Promise<FakeBox> {
  let minutes = 0;
  const tick = () => new Date(Date.UTC(2025, 2, 3, 9, minutes++)).toISOString().replace('.000Z', '-00:00');
  const data = (opts.seed ?? seedBox)(tick);
  const brand = data.files.find((f) => f.id === '2003');
  if (brand && brand.content.length === 0) brand.content = await makeDocx('Brand guide', ['Use the teal logo on dark backgrounds.']);
  const token = 'box-developer-token-fake';
  let issued = 0;
  let eventIds = 0;
  const fake = new VendorFake({
    name: 'Box',
    tokens: [token],
    publicPath: (p) => p === '/oauth2/token' || p.startsWith('/d/'),
    unauthorized: () => ({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="Service", error="invalid_token", error_description="The access token provided is invalid."' },
      body: '',
    }),
    rateLimited: () => boxError(429, 'rate_limit_exceeded', 'Request rate limit exceeded, please try again later'),
    serverError: (status) => boxError(status, 'internal_server_error', 'Internal Server Error'),
  });

  const folderById = (id: string) => data.folders.find((f) => f.id === id);
  const fileById = (id: string) => data.files.find((f) => f.id === id);
  const activeFolder = (id: string) => {
    const f = folderById(id);
    return f && !f.trashed ? f : undefined;
  };
  const pathCollection = (parentId: string | null) => {
    const entries: { type: string; id: string; sequence_id: string | null; etag: string | null; name: string }[] = [];
    for (let f = parentId ? folderById(parentId) : undefined; f; f = f.parentId ? folderById(f.parentId) : undefined) {
      entries.unshift({ type: 'folder', id: f.id, sequence_id: f.id === '0' ? null : '1', etag: f.id === '0' ? null : '1', name: f.name });
    }
    return { total_count: entries.length, entries };
  };
  const parentMini = (id: string | null) => {
    const p = id ? folderById(id) : undefined;
    return p ? { type: 'folder', id: p.id, sequence_id: p.id === '0' ? null : '1', etag: p.id === '0' ? null : '1', name: p.name } : null;
  };
  const fileResource = (f: FakeBoxFile): Record<string, unknown> => ({
    type: 'file',
    id: f.id,
    etag: String(f.version - 1),
    sequence_id: String(f.version - 1),
    name: f.name,
    sha1: `sha1-${f.id}-${f.version}`,
    file_version: { type: 'file_version', id: `${f.id}0${f.version}`, sha1: `sha1-${f.id}-${f.version}` },
    description: f.description ?? '',
    size: f.size ?? f.content.length,
    extension: f.name.includes('.') ? (f.name.split('.').pop() ?? '') : '',
    path_collection: pathCollection(f.parentId),
    created_at: f.created_at,
    modified_at: f.modified_at,
    content_created_at: f.created_at,
    content_modified_at: f.modified_at,
    created_by: mini(f.created_by),
    modified_by: mini(f.modified_by),
    owned_by: mini(f.owned_by),
    shared_link: f.shared_link ? { url: `https://app.box.com/s/${f.id}shared`, access: f.shared_link.access, effective_access: f.shared_link.access, permissions: { can_download: true, can_preview: true } } : null,
    parent: parentMini(f.parentId),
    item_status: f.trashed ? 'trashed' : 'active',
  });
  const folderResource = (f: FakeBoxFolder): Record<string, unknown> => ({
    type: 'folder',
    id: f.id,
    etag: f.id === '0' ? null : '1',
    sequence_id: f.id === '0' ? null : '1',
    name: f.name,
    created_at: f.id === '0' ? null : f.created_at,
    modified_at: f.id === '0' ? null : f.modified_at,
    path_collection: pathCollection(f.parentId),
    owned_by: mini(f.owner),
    created_by: mini(f.owner),
    modified_by: mini(f.owner),
    parent: parentMini(f.parentId),
    item_status: f.trashed ? 'trashed' : 'active',
    shared_link: null,
  });
  /** `fields`: Box answers the mini representation plus the requested fields. */
  const project = (req: FakeRequest, resource: Record<string, unknown>): Record<string, unknown> => {
    const fields = req.query.get('fields');
    if (!fields) return resource;
    const wanted = new Set([...MINI_FIELDS, ...fields.split(',').map((f) => f.trim())]);
    return Object.fromEntries(Object.entries(resource).filter(([k]) => wanted.has(k)));
  };
  const limitOf = (req: FakeRequest, dflt: number, max: number) => {
    const raw = req.query.get('limit');
    return raw ? Math.min(max, Math.max(1, Number(raw) || dflt)) : dflt;
  };
  const log = (event_type: string, source: Record<string, unknown> | null) => {
    data.events.push({ event_id: `ev-${++eventIds}-${event_type.toLowerCase()}`, event_type, created_at: tick(), source });
  };

  fake.route(
    'POST',
    '/oauth2/token',
    oauthTokenEndpoint(fake, { code: opts.oauthCode ?? 'box-code', issue: () => ({ access_token: `box-oauth-${++issued}`, refresh_token: `box-refresh-${issued}`, expires_in: 3600, restricted_to: [] }) }),
  );

  fake.route('GET', '/2.0/users/me', (req) => ({ json: project(req, { type: 'user', ...data.me, status: 'active', language: 'en', timezone: 'Europe/London' }) }));

  fake.route('GET', '/2.0/folders/:id', (req) => {
    const f = folderById(req.params.id ?? '');
    if (!f) return notFound();
    if (f.trashed) return notFound('trashed');
    return { json: project(req, folderResource(f)) };
  });

  fake.route('GET', '/2.0/folders/:id/items', (req) => {
    const f = folderById(req.params.id ?? '');
    if (!f) return notFound();
    if (f.trashed) return notFound('trashed');
    const children = [
      ...data.folders.filter((x) => x.parentId === f.id && !x.trashed).map(folderResource),
      ...data.files.filter((x) => x.parentId === f.id && !x.trashed).map(fileResource),
    ].map((r) => project(req, r));
    const limit = limitOf(req, 100, 1000);
    if (req.query.get('usemarker') === 'true') {
      const page = cursorPage(children, req.query.get('marker'), limit);
      return { json: { entries: page.items, limit, next_marker: page.next } };
    }
    const offset = Number(req.query.get('offset') ?? 0);
    return { json: { total_count: children.length, entries: children.slice(offset, offset + limit), offset, limit, order: [{ by: 'type', direction: 'ASC' }] } };
  });

  fake.route('GET', '/2.0/folders/:id/collaborations', (req) => {
    const f = activeFolder(req.params.id ?? '');
    if (!f) return notFound();
    const entries = f.collaborations.map((c) => ({ type: 'collaboration', id: c.id, role: c.role, status: c.status, accessible_by: c.accessible_by, item: { type: 'folder', id: f.id, name: f.name } }));
    return { json: { entries, limit: limitOf(req, 100, 1000), next_marker: null } };
  });

  fake.route('GET', '/2.0/files/:id', (req) => {
    const f = fileById(req.params.id ?? '');
    if (!f) return notFound();
    if (f.trashed) return notFound('trashed');
    return { json: project(req, fileResource(f)) };
  });

  fake.route('GET', '/2.0/files/:id/content', (req) => {
    const f = fileById(req.params.id ?? '');
    if (!f || f.trashed) return notFound();
    if (f.notReady) return { status: 202, headers: { 'retry-after': '5' }, body: '' };
    return { status: 302, headers: { location: `${fake.url}/d/1/${f.id}-v${f.version}/download` }, body: '' };
  });

  // The download host (dl.boxcloud.com): the URL grants access; a request carrying the API token is refused.
  fake.route('GET', '/d/1/:blob/download', (req) => {
    if (req.headers.authorization) return { status: 400, body: 'the API token must not be sent to the download host' };
    const [id, version] = (req.params.blob ?? '').split('-v');
    const f = fileById(id ?? '');
    if (!f || String(f.version) !== version) return { status: 404, body: '' };
    return { headers: { 'content-type': 'application/octet-stream' }, body: f.content };
  });

  fake.route('GET', '/2.0/events', (req) => {
    const type = req.query.get('stream_type') ?? 'all';
    if (!['all', 'changes', 'sync'].includes(type)) return boxError(400, 'bad_request', 'Invalid value for stream_type');
    const raw = req.query.get('stream_position') ?? '0';
    let start: number;
    if (raw === 'now') start = data.events.length;
    else {
      if (!/^\d+$/.test(raw)) return boxError(400, 'bad_request', 'Invalid stream_position');
      const n = BigInt(raw);
      start = n === 0n ? 0 : Number(n - STREAM_BASE);
      if (start < 0 || start > data.events.length) return boxError(400, 'bad_request', 'Invalid stream_position');
    }
    const slice = raw === 'now' ? [] : data.events.slice(start, start + limitOf(req, 100, 500));
    const next = STREAM_BASE + BigInt(start + slice.length);
    const body = JSON.stringify({ chunk_size: slice.length, next_stream_position: `@@${next}@@`, entries: slice.map((e) => ({ type: 'event', ...e, recorded_at: e.created_at, session_id: null })) });
    // A bare 64-bit integer, as Box sends it.
    return { headers: { 'content-type': 'application/json' }, body: body.replace(/"@@(\d+)@@"/, '$1') };
  });

  await fake.start();
  const mustFile = (id: string) => {
    const f = fileById(id);
    if (!f) throw new Error(`no file ${id}`);
    return f;
  };
  const mustFolder = (id: string) => {
    const f = folderById(id);
    if (!f) throw new Error(`no folder ${id}`);
    return f;
  };
  const touch = (f: FakeBoxFile) => {
    f.modified_at = tick();
    f.version++;
  };
  return {
    get url() {
      return fake.url;
    },
    token,
    fake,
    data,
    tick,
    addFile(partial) {
      const t = tick();
      const f: FakeBoxFile = {
        parentId: '0',
        content: Buffer.from(''),
        created_at: t,
        modified_at: t,
        created_by: data.me,
        modified_by: data.me,
        owned_by: data.me,
        shared_link: null,
        trashed: false,
        version: 1,
        ...partial,
      };
      data.files.push(f);
      log('ITEM_UPLOAD', fileResource(f));
      return f;
    },
    addFolder(partial) {
      const t = tick();
      const f: FakeBoxFolder = { parentId: '0', owner: data.me, trashed: false, collaborations: [], created_at: t, modified_at: t, ...partial };
      data.folders.push(f);
      log('ITEM_CREATE', folderResource(f));
      return f;
    },
    uploadVersion(id, content) {
      const f = mustFile(id);
      f.content = content;
      touch(f);
      log('ITEM_UPLOAD', fileResource(f));
      return f;
    },
    renameFile(id, name) {
      const f = mustFile(id);
      f.name = name;
      touch(f);
      log('ITEM_RENAME', fileResource(f));
      return f;
    },
    moveFile(id, parentId) {
      const f = mustFile(id);
      f.parentId = parentId;
      touch(f);
      log('ITEM_MOVE', fileResource(f));
      return f;
    },
    moveFolder(id, parentId) {
      const f = mustFolder(id);
      f.parentId = parentId;
      log('ITEM_MOVE', folderResource(f));
      return f;
    },
    trashFile(id) {
      const f = mustFile(id);
      f.trashed = true;
      log('ITEM_TRASH', fileResource(f));
      return f;
    },
    trashFolder(id) {
      const f = mustFolder(id);
      f.trashed = true;
      log('ITEM_TRASH', folderResource(f));
      return f;
    },
    purgeFile(id) {
      const i = data.files.findIndex((f) => f.id === id);
      const [f] = data.files.splice(i, 1);
      if (i < 0 || !f) throw new Error(`no file ${id}`);
      return f;
    },
    addCollaborator(folderId, user) {
      const f = mustFolder(folderId);
      const c: FakeBoxCollaboration = { id: `c-${f.collaborations.length + 10}`, accessible_by: { type: 'user', ...user }, role: 'viewer', status: 'accepted' };
      f.collaborations.push(c);
      log('COLLAB_ADD_COLLABORATOR', { type: 'collaboration', id: c.id, role: c.role, status: c.status, accessible_by: c.accessible_by, item: { type: 'folder', id: f.id, name: f.name } });
    },
    repeatLastEvent() {
      const last = data.events.at(-1);
      if (last) data.events.push({ ...last });
    },
    close: () => fake.close(),
  };
}
