import { createHash, randomUUID } from 'node:crypto';
import { makeDocx, makePdf } from '../documents/fixtures.ts';
import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Dropbox API v2 fake (dropbox.com/developers/documentation/http/documentation and the Stone spec,
 * files.stone / users.stone / auth.stone), on the kit's VendorFake. One server stands for both hosts — the RPC
 * routes of api.dropboxapi.com (`/2/files/list_folder`, `/2/files/list_folder/continue`,
 * `/2/files/list_folder/get_latest_cursor`, `/2/users/get_current_account`, `/oauth2/token`) and the content route of
 * content.dropboxapi.com (`/2/files/download`) — as their paths do not overlap; ATRIUM_CONNECTOR_API_URLS.dropbox
 * points both at it.
 *
 * Wire format: RPC bodies are JSON with `Content-Type: application/json` (strict: unknown fields → 400 plain text);
 * download takes its argument in the `Dropbox-API-Arg` header (ASCII-only JSON), no body and no JSON Content-Type, and
 * answers the bytes with the metadata in `Dropbox-API-Result`. Listing cursors are opaque; a listing's last cursor
 * reads the changes after it (`list_folder/continue`: per changed path its latest state, deletions as
 * `.tag: deleted` without id; a deleted folder is one entry). Errors: 400 plain text, 401 `{error_summary, error:
 * {.tag: invalid_access_token|expired_access_token}}`, 409 endpoint errors (`path/not_found`, `path/not_folder`,
 * `path/restricted_content`, `unsupported_file`, `reset`), 429 `{error: {reason: {.tag: too_many_requests},
 * retry_after}}` with Retry-After, 5xx plain text.
 */
export interface FakeDropboxItem {
  tag: 'file' | 'folder';
  id: string;
  name: string;
  path_display: string;
  client_modified: string;
  server_modified: string;
  rev: string;
  content?: Buffer;
  /** Declared size (defaults to the content's length). */
  size?: number;
  /** false: a Paper / Google doc in Dropbox, only exportable. */
  is_downloadable?: boolean;
  /** A shared folder's mount point. */
  shared_folder_id?: string;
  /** Download refused with path/restricted_content. */
  restricted?: boolean;
  modified_by?: string;
}

type Meta = Record<string, unknown>;

export interface FakeDropboxData {
  account: { account_id: string; email: string; display_name: string };
  items: FakeDropboxItem[];
  /** Every change: the path and the state after it (null = deleted). */
  log: { seq: number; path_lower: string; item: FakeDropboxItem | null; name: string; path_display: string }[];
}

const lower = (p: string) => p.toLowerCase();
const parentOf = (p: string) => p.slice(0, p.lastIndexOf('/'));
const isUnder = (p: string, root: string) => root === '' || p === root || p.startsWith(`${root}/`);

/** Dropbox's content hash: SHA-256 over the concatenated SHA-256 digests of 4 MiB blocks. */
export function contentHash(bytes: Buffer): string {
  const blocks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 4 * 1024 * 1024) blocks.push(createHash('sha256').update(bytes.subarray(i, i + 4 * 1024 * 1024)).digest());
  return createHash('sha256').update(Buffer.concat(blocks)).digest('hex');
}

const text400 = (route: string, message: string): FakeReply => ({ status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Error in call to API function "${route}": ${message}` });
const endpointError = (summary: string, error: Meta): FakeReply => ({ status: 409, json: { error_summary: `${summary}/..`, error } });
const lookupError = (tag: string) => endpointError(`path/${tag}`, { '.tag': 'path', path: { '.tag': tag } });

interface ListCursor {
  k: 'list';
  l: string;
  o: number;
}
interface ChangeCursor {
  k: 'changes';
  path: string;
  seq: number;
}
type Cursor = (ListCursor | ChangeCursor) & { limit: number; nd: boolean; epoch: number; recursive: boolean };

export interface FakeDropbox {
  readonly url: string;
  readonly token: string;
  readonly fake: VendorFake;
  readonly data: FakeDropboxData;
  addFile(pathDisplay: string, content: Buffer | string, extra?: Partial<FakeDropboxItem>): FakeDropboxItem;
  addFolder(pathDisplay: string, extra?: Partial<FakeDropboxItem>): FakeDropboxItem;
  /** New content (a new rev and server_modified). */
  updateFile(pathDisplay: string, content: Buffer | string): FakeDropboxItem;
  /** Moves a file or folder (with its children): a deleted entry at the old path, the item at the new one. */
  move(fromPath: string, toPath: string): void;
  /** Deletes a file, or a folder with everything under it (one deleted entry for the folder). */
  remove(pathDisplay: string): void;
  /** Every cursor handed out so far answers 409 reset. */
  resetCursors(): void;
  /** The token is refused with 401 expired_access_token from now on. */
  expire(token: string): void;
  close(): Promise<void>;
}

export interface SeedTarget {
  file(p: string, content: Buffer | string, extra?: Partial<FakeDropboxItem>): void;
  folder(p: string, extra?: Partial<FakeDropboxItem>): void;
  /** A Word file built beforehand (building one is asynchronous). */
  readonly docx: Buffer;
}

export function seedDropbox(add: SeedTarget): void {
  add.folder('/Projects');
  add.file('/Projects/Atlas design.md', '# Atlas design\r\n\r\nThe Atlas service stores telemetry in columnar shards.\r\n');
  add.folder('/Projects/Specs');
  add.file('/Projects/Specs/requirements.docx', add.docx);
  add.file('/Onboarding.pdf', makePdf(['Welcome to Atrium onboarding.', 'Badges are issued on day one.']));
  add.file('/notes.txt', 'Kickoff moved to Thursday.');
  add.folder('/Team Wiki', { shared_folder_id: '84528192421' });
  add.file('/Team Wiki/runbook.html', '<html><head><title>Runbook</title></head><body><h1>Runbook</h1><p>Page the on-call engineer for sev1 incidents.</p></body></html>', {
    modified_by: 'dbid:AAGraceHopper',
  });
  add.file('/Team Wiki/budget.csv', 'Quarter,Amount\nQ1,1200\nQ2,1350\n');
  add.file('/photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  add.file('/Huge scan.pdf', makePdf(['Huge']), { size: 50 * 1024 * 1024 });
  add.file('/Roadmap.paper', '', { is_downloadable: false });
}

export async function startFakeDropbox(opts: { seed?: typeof seedDropbox; oauthCode?: string } = {}): Promise<FakeDropbox> {
  let minutes = 0;
  const tick = () => new Date(Date.UTC(2025, 1, 3, 9, minutes++)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let n = 0;
  let seq = 0;
  let epoch = 1;
  const data: FakeDropboxData = { account: { account_id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc', email: 'Ada@Atrium.test', display_name: 'Ada Lovelace' }, items: [], log: [] };
  const token = 'sl.fake-dropbox-token';
  const expired = new Set<string>();
  let issued = 0;
  /** Multi-page listings: the snapshot, its folder, and the change seq it was taken at. */
  const listings = new Map<string, { entries: Meta[]; root: string; seq: number }>();

  const byPath = (p: string) => data.items.find((i) => lower(i.path_display) === lower(p));
  const log = (path_display: string, item: FakeDropboxItem | null) =>
    data.log.push({ seq: ++seq, path_lower: lower(path_display), path_display, name: path_display.slice(path_display.lastIndexOf('/') + 1), item: item ? { ...item } : null });
  /** The nearest shared folder at or above `p` (for the items inside it). */
  const sharedAbove = (p: string): string | undefined => {
    for (let q = parentOf(p); q !== ''; q = parentOf(q)) {
      const f = byPath(q);
      if (f?.shared_folder_id) return f.shared_folder_id;
    }
    return undefined;
  };
  const metadata = (i: FakeDropboxItem): Meta => {
    const base = { '.tag': i.tag, name: i.name, path_lower: lower(i.path_display), path_display: i.path_display, id: i.id };
    const parentShared = sharedAbove(i.path_display);
    if (i.tag === 'folder') {
      const sharing = i.shared_folder_id || parentShared ? { sharing_info: { read_only: false, ...(parentShared ? { parent_shared_folder_id: parentShared } : {}), ...(i.shared_folder_id ? { shared_folder_id: i.shared_folder_id, traverse_only: false, no_access: false } : {}) } } : {};
      return { ...base, ...sharing };
    }
    const bytes = i.content ?? Buffer.alloc(0);
    return {
      ...base,
      client_modified: i.client_modified,
      server_modified: i.server_modified,
      rev: i.rev,
      size: i.size ?? bytes.length,
      is_downloadable: i.is_downloadable ?? true,
      ...(i.is_downloadable === false ? { export_info: { export_as: 'html', export_options: ['html', 'markdown'] } } : {}),
      ...(parentShared ? { sharing_info: { read_only: false, parent_shared_folder_id: parentShared, modified_by: i.modified_by ?? data.account.account_id } } : {}),
      content_hash: contentHash(bytes),
    };
  };
  const deletedMeta = (e: FakeDropboxData['log'][number]): Meta => ({ '.tag': 'deleted', name: e.name, path_lower: e.path_lower, path_display: e.path_display });

  const addItem = (tag: 'file' | 'folder', pathDisplay: string, content: Buffer | string | undefined, extra: Partial<FakeDropboxItem> = {}) => {
    const parent = parentOf(pathDisplay);
    if (parent && !byPath(parent)) addItem('folder', parent, undefined);
    const t = tick();
    const id = `id:a4ayc_80_OEAAAAAAAA${String(++n).padStart(3, '0')}`;
    const item: FakeDropboxItem = {
      tag,
      id,
      name: pathDisplay.slice(pathDisplay.lastIndexOf('/') + 1),
      path_display: pathDisplay,
      client_modified: t,
      server_modified: t,
      rev: `015f${(0x1000 + n).toString(16)}a1c10ce0`,
      ...(content !== undefined ? { content: Buffer.isBuffer(content) ? content : Buffer.from(content) } : {}),
      ...extra,
    };
    data.items.push(item);
    log(pathDisplay, item);
    return item;
  };

  const docx = await makeDocx('Requirements', ['The exporter must batch writes every five seconds.']);
  (opts.seed ?? seedDropbox)({ file: (p, c, e) => void addItem('file', p, c, e), folder: (p, e) => void addItem('folder', p, undefined, e), docx });

  const fake = new VendorFake({
    name: 'Dropbox',
    tokens: [token],
    publicPath: (p) => p === '/oauth2/token',
    unauthorized: (req) => {
      const tag = req.token && expired.has(req.token) ? 'expired_access_token' : 'invalid_access_token';
      return { status: 401, headers: { 'www-authenticate': 'Bearer realm="Dropbox-API"' }, json: { error_summary: `${tag}/..`, error: { '.tag': tag } } };
    },
    rateLimited: (retryAfter) => ({ status: 429, json: { error_summary: 'too_many_requests/..', error: { reason: { '.tag': 'too_many_requests' }, retry_after: retryAfter } } }),
    serverError: () => ({ headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Internal Server Error' }),
  });

  const encode = (c: Cursor) => `AAE${Buffer.from(JSON.stringify(c)).toString('base64url')}`;
  const decode = (s: unknown): Cursor | null => {
    if (typeof s !== 'string' || !s.startsWith('AAE')) return null;
    try {
      return JSON.parse(Buffer.from(s.slice(3), 'base64url').toString('utf8')) as Cursor;
    } catch {
      return null;
    }
  };

  /** A JSON RPC body checked as Dropbox's Stone deserializer does: JSON content type, known fields only. */
  const rpcBody = (req: FakeRequest, route: string, fields: readonly string[]): { body: Meta } | { reply: FakeReply } => {
    const ct = req.headers['content-type'] ?? '';
    if (!ct.startsWith('application/json')) {
      return { reply: text400(route, `Bad HTTP "Content-Type" header: "${ct}".  Expecting one of "application/json", "application/json; charset=utf-8", "text/plain; charset=dropbox-cors-hack".`) };
    }
    const body = req.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { reply: text400(route, 'request body: could not decode input as JSON') };
    for (const k of Object.keys(body)) if (!fields.includes(k)) return { reply: text400(route, `request body: unknown field '${k}'`) };
    return { body: body as Meta };
  };

  const visible = (i: FakeDropboxItem, nd: boolean) => nd || i.tag === 'folder' || i.is_downloadable !== false;
  const LIST_FIELDS = ['path', 'recursive', 'include_media_info', 'include_deleted', 'include_has_explicit_shared_members', 'include_mounted_folders', 'limit', 'include_non_downloadable_files'];

  /** Resolves a list_folder `path` ('' = root, '/a/b', or 'id:…'): its lower-cased path, or the 409 to answer. */
  const folderPath = (path: unknown, route: string): string | FakeReply => {
    if (typeof path !== 'string') return text400(route, "request body: missing required field 'path'");
    if (path === '') return '';
    if (!/^(\/(.|[\r\n])*|id:.*|ns:[0-9]+(\/.*)?)$/.test(path) || path === '/') return text400(route, `request body: path: '${path}' did not match pattern '(/(.|[\\r\\n])*)?|id:.*|(ns:[0-9]+(/.*)?)'`);
    const item = path.startsWith('id:') ? data.items.find((i) => i.id === path) : byPath(path);
    if (!item) return lookupError('not_found');
    if (item.tag !== 'folder') return lookupError('not_folder');
    return lower(item.path_display);
  };

  const changePage = (c: ChangeCursor & Cursor): FakeReply => {
    if (c.epoch !== epoch) return endpointError('reset', { '.tag': 'reset' });
    const latest = new Map<string, FakeDropboxData['log'][number]>();
    for (const e of data.log) {
      if (e.seq <= c.seq || !isUnder(e.path_lower, c.path) || e.path_lower === c.path) continue;
      if (!c.recursive && parentOf(e.path_lower) !== c.path) continue;
      latest.delete(e.path_lower);
      latest.set(e.path_lower, e);
    }
    const changed = [...latest.values()].filter((e) => !e.item || visible(e.item, c.nd));
    const page = changed.slice(0, c.limit);
    const more = changed.length > c.limit;
    const nextSeq = more ? (page[page.length - 1]?.seq ?? c.seq) : seq;
    const entries = page.map((e) => (e.item ? metadata(byPath(e.path_display) ?? e.item) : deletedMeta(e)));
    return { json: { entries, cursor: encode({ ...c, seq: nextSeq }), has_more: more } };
  };

  fake.route('POST', '/oauth2/token', oauthTokenEndpoint(fake, { code: opts.oauthCode ?? 'dropbox-code', issue: () => ({ access_token: `sl.oauth-${++issued}`, refresh_token: 'dropbox-refresh', expires_in: 14400, scope: 'account_info.read files.content.read files.metadata.read', account_id: data.account.account_id, uid: '12345' }) }));

  fake.route('POST', '/2/users/get_current_account', (req) => {
    if (req.rawBody && req.rawBody.trim() !== 'null') return text400('users/get_current_account', 'request body: expected null, got value');
    const a = data.account;
    return {
      json: {
        account_id: a.account_id,
        name: { given_name: 'Ada', surname: 'Lovelace', familiar_name: 'Ada', display_name: a.display_name, abbreviated_name: 'AL' },
        email: a.email,
        email_verified: true,
        disabled: false,
        country: 'GB',
        locale: 'en',
        referral_link: 'https://db.tt/ZITNuhtI',
        is_paired: false,
        account_type: { '.tag': 'basic' },
        root_info: { '.tag': 'user', root_namespace_id: '3235641', home_namespace_id: '3235641' },
      },
    };
  });

  fake.route('POST', '/2/files/list_folder', (req) => {
    const parsed = rpcBody(req, 'files/list_folder', LIST_FIELDS);
    if ('reply' in parsed) return parsed.reply;
    const { body } = parsed;
    const root = folderPath(body.path, 'files/list_folder');
    if (typeof root !== 'string') return root;
    const limit = typeof body.limit === 'number' ? body.limit : 500;
    if (!Number.isInteger(limit) || limit < 1 || limit > 2000) return text400('files/list_folder', `request body: limit: ${String(body.limit)} is not within range [1, 2000]`);
    const recursive = body.recursive === true;
    const nd = body.include_non_downloadable_files !== false;
    const items = data.items
      .filter((i) => {
        const p = lower(i.path_display);
        return p !== root && isUnder(p, root) && (recursive || parentOf(p) === root) && visible(i, nd);
      })
      .sort((a, b) => lower(a.path_display).localeCompare(lower(b.path_display)));
    const listing = items.map(metadata);
    const l = randomUUID();
    listings.set(l, { entries: listing, root, seq });
    const base = { limit, nd, epoch, recursive };
    const more = listing.length > limit;
    return { json: { entries: listing.slice(0, limit), cursor: encode(more ? { k: 'list', l, o: limit, ...base } : { k: 'changes', path: root, seq, ...base }), has_more: more } };
  });

  fake.route('POST', '/2/files/list_folder/continue', (req) => {
    const parsed = rpcBody(req, 'files/list_folder/continue', ['cursor']);
    if ('reply' in parsed) return parsed.reply;
    const c = decode(parsed.body.cursor);
    if (!c) return text400('files/list_folder/continue', 'Invalid "cursor" parameter: cursor is malformed');
    if (c.epoch !== epoch) return endpointError('reset', { '.tag': 'reset' });
    if (c.k === 'changes') return changePage(c);
    const listing = listings.get(c.l);
    if (!listing) return endpointError('reset', { '.tag': 'reset' });
    const entries = listing.entries.slice(c.o, c.o + c.limit);
    const more = c.o + c.limit < listing.entries.length;
    // The snapshot is read in pages; what changed since it was taken comes through the listing's last cursor.
    const last: Cursor = more ? { ...c, o: c.o + c.limit } : { k: 'changes', path: listing.root, seq: listing.seq, limit: c.limit, nd: c.nd, epoch, recursive: c.recursive };
    return { json: { entries, cursor: encode(last), has_more: more } };
  });

  fake.route('POST', '/2/files/list_folder/get_latest_cursor', (req) => {
    const parsed = rpcBody(req, 'files/list_folder/get_latest_cursor', LIST_FIELDS);
    if ('reply' in parsed) return parsed.reply;
    const { body } = parsed;
    const root = folderPath(body.path, 'files/list_folder/get_latest_cursor');
    if (typeof root !== 'string') return root;
    const limit = typeof body.limit === 'number' ? body.limit : 500;
    return { json: { cursor: encode({ k: 'changes', path: root, seq, limit, nd: body.include_non_downloadable_files !== false, epoch, recursive: body.recursive === true }) } };
  });

  fake.route('POST', '/2/files/download', (req) => {
    const ct = req.headers['content-type'];
    if (ct && !/^(text\/plain|application\/octet-stream)/.test(ct)) {
      return text400('files/download', `Bad HTTP "Content-Type" header: "${ct}".  Expecting one of "text/plain", "text/plain; charset=utf-8", "application/octet-stream", "application/octet-stream; charset=utf-8".`);
    }
    if (req.rawBody) return text400('files/download', 'This endpoint takes no request body; pass the argument in the Dropbox-API-Arg header');
    const raw = req.headers['dropbox-api-arg'];
    if (typeof raw !== 'string') return text400('files/download', 'Missing "Dropbox-API-Arg" header');
    if (/[\u007f-\uffff]/.test(raw)) return text400('files/download', 'Dropbox-API-Arg header: characters 0x7F and above must be escaped');
    let arg: Meta;
    try {
      arg = JSON.parse(raw) as Meta;
    } catch {
      return text400('files/download', 'Dropbox-API-Arg header: could not decode input as JSON');
    }
    const path = arg.path;
    if (typeof path !== 'string') return text400('files/download', "Dropbox-API-Arg header: missing required field 'path'");
    const item = path.startsWith('id:') ? data.items.find((i) => i.id === path) : byPath(path);
    if (!item) return lookupError('not_found');
    if (item.tag !== 'file') return lookupError('not_file');
    if (item.is_downloadable === false) return endpointError('unsupported_file', { '.tag': 'unsupported_file' });
    if (item.restricted) return lookupError('restricted_content');
    const jsonHeader = JSON.stringify(metadata(item)).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    return { headers: { 'content-type': 'application/octet-stream', 'dropbox-api-result': jsonHeader }, body: item.content ?? Buffer.alloc(0) };
  });

  await fake.start();

  const touch = (i: FakeDropboxItem) => {
    i.server_modified = tick();
    i.rev = `015f${(0x1000 + ++n).toString(16)}a1c10ce0`;
  };

  return {
    get url() {
      return fake.url;
    },
    token,
    fake,
    data,
    addFile: (p, content, extra) => addItem('file', p, content, extra),
    addFolder: (p, extra) => addItem('folder', p, undefined, extra),
    updateFile(p, content) {
      const i = byPath(p);
      if (i?.tag !== 'file') throw new Error(`no file at ${p}`);
      i.content = Buffer.isBuffer(content) ? content : Buffer.from(content);
      i.client_modified = tick();
      touch(i);
      log(i.path_display, i);
      return i;
    },
    move(from, to) {
      const moved = data.items.filter((i) => isUnder(lower(i.path_display), lower(from)));
      if (moved.length === 0) throw new Error(`nothing at ${from}`);
      log(from, null);
      for (const i of moved) {
        i.path_display = to + i.path_display.slice(from.length);
        i.name = i.path_display.slice(i.path_display.lastIndexOf('/') + 1);
        log(i.path_display, i);
      }
    },
    remove(p) {
      const gone = data.items.filter((i) => isUnder(lower(i.path_display), lower(p)));
      if (gone.length === 0) throw new Error(`nothing at ${p}`);
      data.items = data.items.filter((i) => !gone.includes(i));
      log(p, null);
    },
    resetCursors() {
      epoch++;
    },
    expire(t) {
      expired.add(t);
      fake.revoke(t);
    },
    close: () => fake.close(),
  };
}
