import { makeDocx, makePdf } from '../documents/fixtures.ts';
import { cursorPage, type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Google Drive API v3 fake (developers.google.com/drive/api/reference/rest/v3), on the kit's VendorFake:
 * `GET /drive/v3/about` (the `fields` parameter required), `/drive/v3/files` (the `q` language subset: `'id' in parents`,
 * `trashed = false`, `mimeType = / !=`, `and`/`or`/parentheses; `corpora` user|drive|allDrives with the shared-drive
 * parameter rules; `pageSize`/`pageToken`), `/drive/v3/files/{id}` (metadata, or bytes with `alt=media`; shared-drive
 * items only with `supportsAllDrives=true`), `/drive/v3/files/{id}/export?mimeType=`, `/drive/v3/drives`,
 * `/drive/v3/changes/startPageToken` and `/drive/v3/changes` (a change log: `nextPageToken` until the end, then
 * `newStartPageToken`; removals as `removed: true` without `file`). Partial responses: only the `fields` asked for
 * are returned. Errors in Google's JSON shape `{error: {code, message, errors: [{domain, reason, message}], status}}`;
 * 401 `authError`; quota answers as 429 `rateLimitExceeded` or 403 `userRateLimitExceeded` (`quotaNext`).
 */
export interface FakeDriveFile {
  id: string;
  name: string;
  mimeType: string;
  createdTime: string;
  modifiedTime: string;
  parents: string[];
  driveId?: string;
  trashed: boolean;
  description?: string;
  owners?: { emailAddress: string; displayName: string }[];
  lastModifyingUser?: { emailAddress: string; displayName: string };
  /** Undefined: the account may not share the file, so Drive does not show its permissions (and never in shared drives). */
  permissions?: { id: string; type: string; role: string; emailAddress?: string; domain?: string }[];
  /** The declared size (int64 string); defaults to the content's length for binary files. */
  size?: string;
  /** Bytes for `alt=media` (files that are not Google types). */
  content?: Buffer;
  /** Google types: export output per target MIME type. */
  exports?: Record<string, string>;
  /** A Google type whose export Drive refuses (403 with this reason, e.g. exportSizeLimitExceeded). */
  exportError?: string;
}

export interface FakeDriveData {
  account: { emailAddress: string; displayName: string; permissionId: string };
  rootId: string;
  drives: { id: string; name: string }[];
  files: FakeDriveFile[];
  /** The change log changes.list reads: one entry per change, the file as it is now. */
  changes: { fileId: string; time: string; removed: boolean }[];
  /**
   * The Workspace's Google groups (Admin SDK Directory API): members are user emails or nested group emails.
   * `directoryRefused`: the Directory API answers 403 (a non-admin account, or the scope not granted).
   */
  directory?: { groups: { id: string; email: string; name: string; members: string[] }[]; directoryRefused?: boolean };
  /** A shared drive's members (`permissions.list` with the drive id as fileId). */
  driveMembers?: Record<string, { type: 'user' | 'group'; emailAddress: string; role: string }[]>;
}

export const DOC = 'application/vnd.google-apps.document';
export const SHEET = 'application/vnd.google-apps.spreadsheet';
export const SLIDES = 'application/vnd.google-apps.presentation';
export const FOLDER = 'application/vnd.google-apps.folder';
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const EXPORTABLE: Record<string, string[]> = { [DOC]: ['text/plain', 'text/html', DOCX, 'application/pdf'], [SHEET]: ['text/csv', 'application/pdf'], [SLIDES]: ['text/plain', 'application/pdf'] };

const googleError = (code: number, reason: string, message: string, status: string, domain = 'global', extra: Record<string, string> = {}): FakeReply => ({
  status: code,
  json: { error: { code, message, errors: [{ domain, reason, message, ...extra }], status } },
});
const invalid = (location: string, message = 'Invalid Value') => googleError(400, 'invalid', message, 'INVALID_ARGUMENT', 'global', { locationType: 'parameter', location });
const notFound = (id: string) => googleError(404, 'notFound', `File not found: ${id}.`, 'NOT_FOUND', 'global', { locationType: 'parameter', location: 'fileId' });

// ---- partial responses (`fields`) ----
type FieldTree = Map<string, FieldTree | null>;
export function parseFields(spec: string): FieldTree {
  const tree: FieldTree = new Map();
  let i = 0;
  const parseList = (into: FieldTree, closing: string | null) => {
    while (i < spec.length) {
      let name = '';
      while (i < spec.length && !',()'.includes(spec[i] ?? '')) name += spec[i++];
      name = name.trim();
      if (spec[i] === '(') {
        i++;
        const sub: FieldTree = new Map();
        parseList(sub, ')');
        if (name) into.set(name, sub);
      } else if (name) into.set(name, null);
      if (spec[i] === ',') i++;
      else if (spec[i] === ')' && closing) {
        i++;
        return;
      }
    }
  };
  parseList(tree, null);
  return tree;
}
export function project(value: unknown, tree: FieldTree | null): unknown {
  if (tree === null || tree.has('*')) return value;
  if (Array.isArray(value)) return value.map((v) => project(v, tree));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, sub] of tree) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = project(v, sub);
  }
  return out;
}

// ---- the `q` language subset ----
function splitTop(q: string, keyword: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    if (c === '\\' && quoted) {
      i++;
      continue;
    }
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && q.startsWith(keyword, i)) {
      parts.push(q.slice(start, i));
      start = i + keyword.length;
      i += keyword.length - 1;
    }
  }
  parts.push(q.slice(start));
  return parts.map((p) => p.trim());
}
const unquote = (s: string) => s.slice(1, -1).replace(/\\(.)/g, '$1');
export function matchesQuery(q: string, f: FakeDriveFile): boolean {
  let s = q.trim();
  if (s.startsWith('(') && s.endsWith(')') && balanced(s.slice(1, -1))) s = s.slice(1, -1).trim();
  const ors = splitTop(s, ' or ');
  if (ors.length > 1) return ors.some((x) => matchesQuery(x, f));
  const ands = splitTop(s, ' and ');
  if (ands.length > 1) return ands.every((x) => matchesQuery(x, f));
  let m = /^('(?:[^'\\]|\\.)*') in parents$/.exec(s);
  if (m?.[1]) return f.parents.includes(unquote(m[1]));
  m = /^trashed\s*=\s*(true|false)$/.exec(s);
  if (m) return f.trashed === (m[1] === 'true');
  m = /^mimeType\s*(=|!=)\s*('(?:[^'\\]|\\.)*')$/.exec(s);
  if (m?.[2]) return m[1] === '=' ? f.mimeType === unquote(m[2]) : f.mimeType !== unquote(m[2]);
  throw new Error(`unsupported query term: ${s}`);
}
function balanced(s: string): boolean {
  let depth = 0;
  let quoted = false;
  for (const c of s) {
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

const webViewLink = (f: FakeDriveFile) =>
  f.mimeType === DOC
    ? `https://docs.google.com/document/d/${f.id}/edit?usp=drivesdk`
    : f.mimeType === SHEET
      ? `https://docs.google.com/spreadsheets/d/${f.id}/edit?usp=drivesdk`
      : f.mimeType === SLIDES
        ? `https://docs.google.com/presentation/d/${f.id}/edit?usp=drivesdk`
        : f.mimeType === FOLDER
          ? `https://drive.google.com/drive/folders/${f.id}`
          : `https://drive.google.com/file/d/${f.id}/view?usp=drivesdk`;

/** The File resource as Drive v3 answers it (before `fields` projection). */
function resource(f: FakeDriveFile): Record<string, unknown> {
  const { content, exports: _e, exportError: _x, size, ...rest } = f;
  const isGoogle = f.mimeType.startsWith('application/vnd.google-apps.');
  return {
    kind: 'drive#file',
    ...rest,
    webViewLink: webViewLink(f),
    ...(size !== undefined ? { size } : !isGoogle && content ? { size: String(content.length) } : {}),
  };
}

const TOKEN_BASE = 1000;

export interface FakeDrive {
  readonly url: string;
  readonly token: string;
  readonly fake: VendorFake;
  readonly data: FakeDriveData;
  /** The next instant (a minute apart). */
  tick(): string;
  addFile(f: Partial<FakeDriveFile> & Pick<FakeDriveFile, 'id' | 'name' | 'mimeType'>): FakeDriveFile;
  /** Edits a file (a new modifiedTime) and logs the change. */
  updateFile(id: string, patch: Partial<FakeDriveFile>): FakeDriveFile;
  /** Deletes a file for good (a `removed` change). */
  deleteFile(id: string): FakeDriveFile;
  /** The next `count` matching requests answer Google's 403 `userRateLimitExceeded` (no Retry-After). */
  quotaNext(count: number, match?: (req: FakeRequest) => boolean): void;
  close(): Promise<void>;
}

export function seedDrive(tick: () => string): FakeDriveData {
  const ada = { emailAddress: 'Ada@Atrium.test', displayName: 'Ada Lovelace' };
  const bob = { emailAddress: 'bob@partner.test', displayName: 'Bob Partner' };
  const owner = (u: { emailAddress: string }, id: string) => ({ id, type: 'user', role: 'owner', emailAddress: u.emailAddress });
  const root = '0AAdaMyDriveRoot';
  const base = (id: string, name: string, mimeType: string, parents: string[], extra: Partial<FakeDriveFile> = {}): FakeDriveFile => {
    const t = tick();
    return { id, name, mimeType, createdTime: t, modifiedTime: t, parents, trashed: false, owners: [ada], lastModifyingUser: ada, permissions: [owner(ada, 'p-ada')], ...extra };
  };
  const files: FakeDriveFile[] = [
    base('fld-projects', 'Projects', FOLDER, [root]),
    base('fld-atlas', 'Atlas', FOLDER, ['fld-projects']),
    base('doc-atlas', 'Atlas design', DOC, ['fld-atlas'], {
      description: 'Architecture of the Atlas telemetry store',
      exports: { 'text/plain': '\uFEFFAtlas design\r\n\r\nThe Atlas service stores telemetry in columnar shards.\r\n' },
      permissions: [owner(ada, 'p-ada'), { id: 'p-eng', type: 'group', role: 'reader', emailAddress: 'Eng@Atrium.test' }, { id: 'p-dom', type: 'domain', role: 'reader', domain: 'atrium.test' }],
    }),
    base('sheet-budget', 'Budget 2025', SHEET, ['fld-projects'], {
      exports: { 'text/csv': 'Quarter,Amount\r\nQ1,1200\r\nQ2,1350\r\n' },
      permissions: [owner(ada, 'p-ada'), { id: 'anyoneWithLink', type: 'anyone', role: 'reader' }],
    }),
    base('slides-review', 'Quarterly review', SLIDES, [root], { exports: { 'text/plain': 'Quarterly review\n\nRevenue grew twelve percent.\n' } }),
    base('pdf-onboarding', 'Onboarding.pdf', 'application/pdf', [root], { content: makePdf(['Welcome to Atrium onboarding.', 'Badges are issued on day one.']) }),
    base('md-notes', 'notes.md', 'text/markdown', [root], { content: Buffer.from('# Notes\n\nKickoff moved to Thursday.\n') }),
    base('png-logo', 'logo.png', 'image/png', [root], { content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) }),
    base('doc-old', 'Old plan', DOC, [root], { trashed: true, exports: { 'text/plain': 'Old plan' } }),
    base('pdf-huge', 'Huge scan.pdf', 'application/pdf', [root], { size: String(50 * 1024 * 1024), content: makePdf(['Huge']) }),
    // Shared with Ada by someone outside: Ada may not share it, so Drive shows no permissions.
    base('doc-contract', 'Vendor contract', DOC, ['0APartnerRoot'], { owners: [bob], lastModifyingUser: bob, permissions: undefined, exports: { 'text/plain': 'Vendor contract\n\nPayment within thirty days.' } }),
    // Shared drives: no owners, no permissions in listings.
    base('doc-runbook', 'Runbook', DOC, ['0ADrvEngineering'], {
      driveId: '0ADrvEngineering',
      owners: undefined,
      permissions: undefined,
      exports: { 'text/plain': 'Runbook\n\nPage the on-call engineer for sev1 incidents.' },
    }),
    base('txt-oncall', 'oncall.txt', 'text/plain', ['0ADrvEngineering'], { driveId: '0ADrvEngineering', owners: undefined, permissions: undefined, content: Buffer.from('Rotation: Ada, Grace, Linus.') }),
    base('docx-brand', 'Brand guide.docx', DOCX, ['0ADrvMarketing'], { driveId: '0ADrvMarketing', owners: undefined, permissions: undefined }),
  ];
  return {
    account: { ...ada, permissionId: '0123456789' },
    rootId: root,
    drives: [
      { id: '0ADrvEngineering', name: 'Engineering' },
      { id: '0ADrvMarketing', name: 'Marketing' },
    ],
    files,
    changes: [],
    // Eng@Atrium.test (on the roadmap's permissions) holds Grace and the nested group oncall@; Engineering's shared
    // drive has Ada as a member and the Eng group.
    directory: {
      groups: [
        { id: 'grp-eng', email: 'eng@atrium.test', name: 'Engineering', members: ['grace@atrium.test', 'oncall@atrium.test'] },
        { id: 'grp-oncall', email: 'oncall@atrium.test', name: 'On call', members: ['linus@atrium.test'] },
      ],
    },
    driveMembers: {
      '0ADrvEngineering': [
        { type: 'user', emailAddress: 'Ada@Atrium.test', role: 'organizer' },
        { type: 'group', emailAddress: 'eng@atrium.test', role: 'reader' },
      ],
      '0ADrvMarketing': [{ type: 'user', emailAddress: 'Ada@Atrium.test', role: 'organizer' }],
    },
  };
}

export async function startFakeDrive(opts: { seed?: (tick: () => string) => FakeDriveData; oauthCode?: string } = {}): Promise<FakeDrive> {
  let minutes = 0;
  const tick = () => new Date(Date.UTC(2025, 0, 6, 9, minutes++)).toISOString();
  const data = (opts.seed ?? seedDrive)(tick);
  const brand = data.files.find((f) => f.id === 'docx-brand');
  if (brand && !brand.content) brand.content = await makeDocx('Brand guide', ['Use the teal logo on dark backgrounds.']);
  const token = 'ya29.fake-drive-token';
  let issued = 0;
  const fake = new VendorFake({
    name: 'Google Drive',
    tokens: [token],
    publicPath: (p) => p === '/token',
    unauthorized: () => ({
      ...googleError(401, 'authError', 'Invalid Credentials', 'UNAUTHENTICATED', 'global', { locationType: 'header', location: 'Authorization' }),
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
    }),
    rateLimited: () => googleError(429, 'rateLimitExceeded', 'Rate Limit Exceeded', 'RESOURCE_EXHAUSTED', 'usageLimits'),
    serverError: (status) =>
      status === 403
        ? googleError(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded. Rate of requests for user exceed configured project quota.', 'PERMISSION_DENIED', 'usageLimits')
        : googleError(status, 'backendError', 'Backend Error', 'INTERNAL'),
  });
  const log = (fileId: string, removed = false) => data.changes.push({ fileId, time: tick(), removed });
  const byId = (id: string) => data.files.find((f) => f.id === id);
  const bool = (req: FakeRequest, name: string) => req.query.get(name) === 'true';
  const fieldsOf = (req: FakeRequest) => (req.query.get('fields') ? parseFields(req.query.get('fields') ?? '') : null);
  const visible = (req: FakeRequest, f: FakeDriveFile) => !f.driveId || bool(req, 'supportsAllDrives');
  const pageSize = (req: FakeRequest, dflt: number, max: number) => Math.min(max, Number(req.query.get('pageSize') ?? dflt) || dflt);

  fake.route('POST', '/token', oauthTokenEndpoint(fake, { code: opts.oauthCode ?? 'google-code', issue: () => ({ access_token: `ya29.oauth-${++issued}`, refresh_token: '1//refresh', expires_in: 3599, scope: 'https://www.googleapis.com/auth/drive.readonly' }) }));

  fake.route('GET', '/drive/v3/about', (req) => {
    if (!req.query.get('fields')) return googleError(400, 'required', "The 'fields' parameter is required for this method.", 'INVALID_ARGUMENT', 'global', { locationType: 'parameter', location: 'fields' });
    return { json: project({ kind: 'drive#about', user: { kind: 'drive#user', me: true, ...data.account } }, fieldsOf(req)) };
  });

  fake.route('GET', '/drive/v3/drives', (req) => {
    const page = cursorPage(data.drives, req.query.get('pageToken'), pageSize(req, 10, 100));
    const body = { kind: 'drive#driveList', drives: page.items.map((d) => ({ kind: 'drive#drive', ...d })), ...(page.next ? { nextPageToken: page.next } : {}) };
    return { json: project(body, fieldsOf(req)) };
  });

  fake.route('GET', '/drive/v3/files', (req) => {
    const corpora = req.query.get('corpora') ?? 'user';
    const driveId = req.query.get('driveId');
    const allDrives = bool(req, 'includeItemsFromAllDrives');
    if ((driveId || corpora === 'drive' || corpora === 'allDrives') && !(allDrives && bool(req, 'supportsAllDrives'))) {
      return invalid('includeItemsFromAllDrives', 'The includeItemsFromAllDrives and supportsAllDrives parameters must be true to list shared drive items.');
    }
    if (corpora === 'drive' && !driveId) return invalid('driveId', 'The driveId parameter must be specified for corpora=drive.');
    let pool = data.files;
    if (corpora === 'user') pool = pool.filter((f) => !f.driveId);
    else if (corpora === 'drive') {
      if (!data.drives.some((d) => d.id === driveId)) return googleError(404, 'notFound', `Shared drive not found: ${driveId}`, 'NOT_FOUND');
      pool = pool.filter((f) => f.driveId === driveId);
    } else if (corpora !== 'allDrives') return invalid('corpora');
    const q = req.query.get('q');
    let matched: FakeDriveFile[];
    try {
      matched = q ? pool.filter((f) => matchesQuery(q, f)) : pool;
    } catch {
      return invalid('q');
    }
    const page = cursorPage(matched, req.query.get('pageToken'), pageSize(req, 100, 1000));
    const body = { kind: 'drive#fileList', incompleteSearch: false, files: page.items.map(resource), ...(page.next ? { nextPageToken: page.next } : {}) };
    return { json: project(body, fieldsOf(req)) };
  });

  fake.route('GET', '/drive/v3/files/:id', (req) => {
    const id = req.params.id ?? '';
    const f = byId(id);
    if (!f || !visible(req, f)) return notFound(id);
    if (req.query.get('alt') === 'media') {
      if (f.mimeType.startsWith('application/vnd.google-apps.')) {
        return googleError(403, 'fileNotDownloadable', 'Only files with binary content can be downloaded. Use Export with Docs Editors files.', 'PERMISSION_DENIED', 'global', { locationType: 'parameter', location: 'alt' });
      }
      return { headers: { 'content-type': f.mimeType }, body: f.content ?? Buffer.alloc(0) };
    }
    return { json: project(resource(f), fieldsOf(req)) };
  });

  // permissions.list on a shared drive's id (supportsAllDrives=true): the drive's members.
  fake.route('GET', '/drive/v3/files/:id/permissions', (req) => {
    const id = req.params.id ?? '';
    const members = data.driveMembers?.[id];
    if (!members || !bool(req, 'supportsAllDrives')) return notFound(id);
    const page = cursorPage(members, req.query.get('pageToken'), pageSize(req, 100, 100));
    const body = { kind: 'drive#permissionList', permissions: page.items.map((m, i) => ({ kind: 'drive#permission', id: `perm-${i}`, ...m })), ...(page.next ? { nextPageToken: page.next } : {}) };
    return { json: project(body, fieldsOf(req)) };
  });

  // Admin SDK Directory API: groups.list (`customer=my_customer`) and members.list (`includeDerivedMembership`).
  const directoryRefused = () =>
    googleError(403, 'forbidden', 'Not Authorized to access this resource/api', 'PERMISSION_DENIED');
  const maxResults = (req: FakeRequest) => Math.min(200, Number(req.query.get('maxResults') ?? 200) || 200);
  fake.route('GET', '/admin/directory/v1/groups', (req) => {
    const dir = data.directory;
    if (!dir || dir.directoryRefused) return directoryRefused();
    if (!req.query.get('customer') && !req.query.get('domain')) return invalid('customer', 'Bad Request');
    const page = cursorPage(dir.groups, req.query.get('pageToken'), maxResults(req));
    return { json: { kind: 'admin#directory#groups', groups: page.items.map((g) => ({ kind: 'admin#directory#group', id: g.id, email: g.email, name: g.name, directMembersCount: String(g.members.length), adminCreated: true })), ...(page.next ? { nextPageToken: page.next } : {}) } };
  });
  fake.route('GET', '/admin/directory/v1/groups/:key/members', (req) => {
    const dir = data.directory;
    if (!dir || dir.directoryRefused) return directoryRefused();
    const key = (req.params.key ?? '').toLowerCase();
    const group = dir.groups.find((g) => g.id.toLowerCase() === key || g.email.toLowerCase() === key);
    if (!group) return googleError(404, 'notFound', 'Resource Not Found: groupKey', 'NOT_FOUND');
    const derived = bool(req, 'includeDerivedMembership');
    const expand = (g: typeof group, seen: Set<string>): { email: string; type: string }[] =>
      g.members.flatMap((m) => {
        const nested = dir.groups.find((x) => x.email.toLowerCase() === m.toLowerCase());
        if (!nested) return [{ email: m, type: 'USER' }];
        if (!derived || seen.has(nested.id)) return [{ email: nested.email, type: 'GROUP' }];
        return [{ email: nested.email, type: 'GROUP' }, ...expand(nested, new Set([...seen, nested.id]))];
      });
    const page = cursorPage(expand(group, new Set([group.id])), req.query.get('pageToken'), maxResults(req));
    return {
      json: {
        kind: 'admin#directory#members',
        members: page.items.map((m, i) => ({ kind: 'admin#directory#member', id: `m-${i}`, email: m.email, role: 'MEMBER', type: m.type, status: 'ACTIVE' })),
        ...(page.next ? { nextPageToken: page.next } : {}),
      },
    };
  });

  fake.route('GET', '/drive/v3/files/:id/export', (req) => {
    const id = req.params.id ?? '';
    const f = byId(id);
    if (!f) return notFound(id);
    const target = req.query.get('mimeType');
    if (!target) return googleError(400, 'required', 'Required parameter: mimeType', 'INVALID_ARGUMENT', 'global', { locationType: 'parameter', location: 'mimeType' });
    const allowed = EXPORTABLE[f.mimeType];
    if (!allowed) return googleError(403, 'fileNotExportable', 'Export only supports Docs Editors files.', 'PERMISSION_DENIED');
    if (f.exportError) return googleError(403, f.exportError, 'This file is too large to be exported.', 'PERMISSION_DENIED');
    if (!allowed.includes(target)) return invalid('mimeType', 'The requested conversion is not supported.');
    return { headers: { 'content-type': `${target}; charset=utf-8` }, body: Buffer.from(f.exports?.[target] ?? '', 'utf8') };
  });

  fake.route('GET', '/drive/v3/changes/startPageToken', () => ({ json: { kind: 'drive#startPageToken', startPageToken: String(TOKEN_BASE + data.changes.length) } }));

  fake.route('GET', '/drive/v3/changes', (req) => {
    const raw = req.query.get('pageToken');
    if (!raw) return googleError(400, 'required', 'Required parameter: pageToken', 'INVALID_ARGUMENT', 'global', { locationType: 'parameter', location: 'pageToken' });
    const start = Number(raw) - TOKEN_BASE;
    if (!Number.isInteger(start) || start < 0 || start > data.changes.length) return invalid('pageToken');
    const size = pageSize(req, 100, 1000);
    const allDrives = bool(req, 'includeItemsFromAllDrives') && bool(req, 'supportsAllDrives');
    const slice = data.changes.slice(start, start + size);
    const changes = slice
      .map((c) => {
        const f = byId(c.fileId);
        if (f?.driveId && !allDrives) return null;
        if (c.removed || !f) return { kind: 'drive#change', changeType: 'file', removed: true, fileId: c.fileId, time: c.time };
        return { kind: 'drive#change', changeType: 'file', removed: false, fileId: c.fileId, time: c.time, ...(f.driveId ? { driveId: f.driveId } : {}), file: resource(f) };
      })
      .filter((c) => c !== null);
    const end = start + slice.length;
    const body = { kind: 'drive#changeList', changes, ...(end < data.changes.length ? { nextPageToken: String(TOKEN_BASE + end) } : { newStartPageToken: String(TOKEN_BASE + end) }) };
    return { json: project(body, fieldsOf(req)) };
  });

  await fake.start();
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
      const f: FakeDriveFile = {
        createdTime: t,
        modifiedTime: t,
        parents: [data.rootId],
        trashed: false,
        owners: [{ emailAddress: data.account.emailAddress, displayName: data.account.displayName }],
        permissions: [{ id: 'p-ada', type: 'user', role: 'owner', emailAddress: data.account.emailAddress }],
        ...partial,
      };
      data.files.push(f);
      log(f.id);
      return f;
    },
    updateFile(id, patch) {
      const f = byId(id);
      if (!f) throw new Error(`no file ${id}`);
      Object.assign(f, patch, { modifiedTime: tick() });
      log(id);
      return f;
    },
    deleteFile(id) {
      const i = data.files.findIndex((f) => f.id === id);
      const [f] = data.files.splice(i, 1);
      if (i < 0 || !f) throw new Error(`no file ${id}`);
      log(id, true);
      return f;
    },
    quotaNext(count, match) {
      fake.failNext(count, 403, match);
    },
    close: () => fake.close(),
  };
}
