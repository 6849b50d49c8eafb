import { z } from 'zod';
import { type Page, parseFile, type SourceContext, SourceSettingsError, type SourceDocument, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { DriveFileError, driveBytes, driveJson } from './client.ts';
import { contentPlan, externalId, FOLDER_MIME, fileToDocument } from './map.ts';
import { readDriveMembers } from './members.ts';
import {
  aboutUser,
  changeList,
  type DriveCredentials,
  type DriveFile,
  driveFile,
  driveList,
  type DriveSettings,
  FILE_FIELDS,
  fileList,
  startPageToken,
  SUPPORTED_MIME_TYPES,
} from './schemas.ts';

type Ctx = SourceContext<DriveCredentials, DriveSettings>;

/** Each listed file costs one more request (its export or download), so listing pages stay small. */
const FILE_PAGE_SIZE = 50;
const CHANGE_PAGE_SIZE = 100;
const MB = 1024 * 1024;

/** What a full listing walks: My Drive (corpora=user), one shared drive (corpora=drive), or one folder's children. */
const unit = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('my_drive') }),
  z.object({ kind: z.literal('drive'), driveId: z.string() }),
  z.object({ kind: z.literal('folder'), folderId: z.string(), driveId: z.string().nullable() }),
]);
type Unit = z.infer<typeof unit>;

export const drivePage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'list', 'changes']),
  /** The connected account's email: a reader of every file it lists (ACL fallback). */
  account: z.string().nullable(),
  /** The changes token taken before a listing began: the next incremental sync starts there, so nothing edited meanwhile is missed. */
  startToken: z.string().nullable(),
  units: z.array(unit),
  /** With `folder_ids`: every folder id known to lie under them (what decides whether a changed file is in scope). */
  folders: z.array(z.string()).nullable(),
  /** files.list `pageToken` within units[0], or the changes.list `pageToken`. */
  pageToken: z.string().nullable(),
});
export type DrivePage = z.infer<typeof drivePage>;

export const driveCursor = z.object({
  page_token: z.string(),
  /** The `folder_ids` the folder set was built for (null: no folder scope). */
  folder_roots: z.array(z.string()).nullable(),
  folders: z.array(z.string()).nullable(),
});
export type DriveCursor = z.infer<typeof driveCursor>;

const cursorOf = (s: DriveSettings, p: DrivePage, token: string): DriveCursor => ({ page_token: token, folder_roots: s.folder_ids ?? null, folders: p.folders });

const sameRoots = (a: readonly string[] | null, b: readonly string[] | undefined) => JSON.stringify([...(a ?? [])].sort()) === JSON.stringify([...(b ?? [])].sort());

function mimeTypes(s: DriveSettings): readonly string[] {
  return s.mime_types ?? SUPPORTED_MIME_TYPES;
}

const quote = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** The files.list `q` for a unit: not trashed, of a wanted type (and, for a folder, its children incl. subfolders). */
export function listQuery(u: Unit, s: DriveSettings): string {
  const types = [...mimeTypes(s), ...(u.kind === 'folder' ? [FOLDER_MIME] : [])];
  const typeQ = `(${types.map((t) => `mimeType = ${quote(t)}`).join(' or ')})`;
  return [u.kind === 'folder' ? `${quote(u.folderId)} in parents` : null, 'trashed = false', typeQ].filter(Boolean).join(' and ');
}

/** Whether a file (listed or changed) belongs in this connector: type, size, then folder or drive scope. */
export function inScope(file: DriveFile, s: DriveSettings, folders: ReadonlySet<string> | null): boolean {
  if (file.trashed || !mimeTypes(s).includes(file.mimeType)) return false;
  if (file.size !== undefined && Number(file.size) > s.max_file_size_mb * MB) return false;
  if (folders) return (file.parents ?? []).some((p) => folders.has(p));
  if (file.driveId) return s.include_shared_drives && (!s.drive_ids || s.drive_ids.includes(file.driveId));
  return s.include_my_drive;
}

type Read = { doc: SourceDocument } | { skip: string } | { gone: true };

/** Exports or downloads one file and extracts its text. */
async function readFile(ctx: Ctx, file: DriveFile, account: string | null): Promise<Read> {
  const plan = contentPlan(file.mimeType);
  if (!plan) return { gone: true };
  const id = encodeURIComponent(file.id);
  const max = ctx.settings.max_file_size_mb * MB;
  let bytes: Uint8Array;
  try {
    bytes =
      plan.via === 'export'
        ? await driveBytes(ctx, `/drive/v3/files/${id}/export`, { mimeType: plan.mimeType }, max)
        : await driveBytes(ctx, `/drive/v3/files/${id}`, { alt: 'media', supportsAllDrives: true }, max);
  } catch (err) {
    if (!(err instanceof DriveFileError)) throw err;
    // Gone since it was listed, or over the size limit: out of scope like a file the listing no longer shows.
    if (err.status === 404 || err.reason === 'tooLarge') return { gone: true };
    return { skip: err.reason };
  }
  try {
    const parsed = await parseFile(plan.parseAs, bytes);
    return { doc: fileToDocument(file, parsed.content, account) };
  } catch (err) {
    return { skip: `cannot extract text: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200) };
  }
}

async function readFiles(ctx: Ctx, files: readonly DriveFile[], account: string | null) {
  const documents: SourceDocument[] = [];
  const skipped: { external_id: string; reason: string }[] = [];
  const gone: string[] = [];
  for (const f of files) {
    const r = await readFile(ctx, f, account);
    if ('doc' in r) documents.push(r.doc);
    else if ('skip' in r) skipped.push({ external_id: externalId(f.id), reason: r.skip });
    else gone.push(externalId(f.id));
  }
  return { documents, skipped, gone };
}

async function sharedDrives(ctx: Ctx): Promise<string[]> {
  if (ctx.settings.drive_ids) return [...ctx.settings.drive_ids];
  const ids: string[] = [];
  let pageToken: string | undefined;
  do {
    const r = await driveJson(ctx, '/drive/v3/drives', { pageSize: 100, pageToken, fields: 'nextPageToken,drives(id,name)' }, driveList);
    ids.push(...r.drives.map((d) => d.id));
    pageToken = r.nextPageToken;
  } while (pageToken);
  return ids;
}

async function folderUnits(ctx: Ctx, ids: readonly string[]): Promise<Unit[]> {
  const units: Unit[] = [];
  for (const id of ids) {
    let f: DriveFile;
    try {
      f = await driveJson(ctx, `/drive/v3/files/${encodeURIComponent(id)}`, { supportsAllDrives: true, fields: 'id,name,mimeType,driveId,trashed' }, driveFile);
    } catch (err) {
      if (err instanceof VendorHttpError && err.status === 404) throw new SourceSettingsError(`folder_ids: folder '${id}' does not exist or is not shared with the connected account`);
      throw err;
    }
    if (f.mimeType !== FOLDER_MIME) throw new SourceSettingsError(`folder_ids: '${id}' is not a folder (${f.mimeType})`);
    units.push({ kind: 'folder', folderId: id, driveId: f.driveId ?? null });
  }
  return units;
}

async function setup(ctx: Ctx, p: DrivePage): Promise<Page<DrivePage, DriveCursor>> {
  const about = await driveJson(ctx, '/drive/v3/about', { fields: 'user(emailAddress,displayName,permissionId)' }, aboutUser);
  const account = about.user.emailAddress?.toLowerCase() ?? null;
  const roots = ctx.settings.folder_ids ?? null;
  // Who is in the groups and shared drives the files' ACLs name, re-read on every sync.
  const members = await readDriveMembers(ctx, ctx.settings.include_shared_drives || ctx.settings.drive_ids ? await sharedDrives(ctx) : []);
  if (p.mode === 'incremental' && p.pageToken) {
    return { documents: [], ...members, next: { ...p, phase: 'changes', account }, cursor: { page_token: p.pageToken, folder_roots: roots, folders: p.folders } };
  }
  // The token is taken before listing: changes made while the listing runs are read by the next incremental sync.
  const start = await driveJson(ctx, '/drive/v3/changes/startPageToken', { supportsAllDrives: true }, startPageToken);
  let units: Unit[];
  if (roots) units = await folderUnits(ctx, roots);
  else {
    units = ctx.settings.include_my_drive ? [{ kind: 'my_drive' }] : [];
    if (ctx.settings.include_shared_drives) units.push(...(await sharedDrives(ctx)).map((driveId): Unit => ({ kind: 'drive', driveId })));
  }
  const next: DrivePage = { ...p, phase: 'list', account, startToken: start.startPageToken, units, folders: roots ? [...roots] : null, pageToken: null };
  return { documents: [], ...members, next: units.length > 0 ? next : null, cursor: cursorOf(ctx.settings, next, start.startPageToken) };
}

async function list(ctx: Ctx, p: DrivePage): Promise<Page<DrivePage, DriveCursor>> {
  const [u, ...rest] = p.units;
  if (!u) return { documents: [], next: null, cursor: p.startToken ? cursorOf(ctx.settings, p, p.startToken) : null };
  const query = {
    q: listQuery(u, ctx.settings),
    fields: `nextPageToken,incompleteSearch,files(${FILE_FIELDS})`,
    pageSize: FILE_PAGE_SIZE,
    pageToken: p.pageToken ?? undefined,
    supportsAllDrives: true,
    ...(u.kind === 'my_drive' ? { corpora: 'user' } : {}),
    ...(u.kind !== 'my_drive' && u.driveId ? { corpora: 'drive', driveId: u.driveId, includeItemsFromAllDrives: true } : {}),
    ...(u.kind === 'folder' && !u.driveId ? { corpora: 'user' } : {}),
  };
  const r = await driveJson(ctx, '/drive/v3/files', query, fileList);
  const folders = p.folders ? new Set(p.folders) : null;
  const queued: Unit[] = [];
  const files: DriveFile[] = [];
  for (const f of r.files) {
    if (f.mimeType === FOLDER_MIME) {
      if (u.kind === 'folder' && folders && !folders.has(f.id)) {
        folders.add(f.id);
        queued.push({ kind: 'folder', folderId: f.id, driveId: f.driveId ?? u.driveId });
      }
      continue;
    }
    // corpora=user lists My Drive; a shared drive's files come with that drive's unit (or not at all).
    if (u.kind === 'my_drive' && f.driveId) continue;
    if (inScope(f, ctx.settings, folders)) files.push(f);
  }
  const { documents, skipped, gone } = await readFiles(ctx, files, p.account);
  const units = r.nextPageToken ? [u, ...rest, ...queued] : [...rest, ...queued];
  const next: DrivePage = { ...p, units, folders: folders ? [...folders] : null, pageToken: r.nextPageToken ?? null };
  return {
    documents,
    skipped,
    // An incremental sync without a cursor lists everything; a file that vanished mid-read is removed.
    deleted: gone,
    next: units.length > 0 ? next : null,
    cursor: p.startToken ? cursorOf(ctx.settings, next, p.startToken) : null,
  };
}

async function changes(ctx: Ctx, p: DrivePage): Promise<Page<DrivePage, DriveCursor>> {
  if (!p.pageToken) throw new Error('Google Drive changes phase without a page token');
  const r = await driveJson(
    ctx,
    '/drive/v3/changes',
    {
      pageToken: p.pageToken,
      pageSize: CHANGE_PAGE_SIZE,
      includeItemsFromAllDrives: true,
      supportsAllDrives: true,
      includeRemoved: true,
      fields: `nextPageToken,newStartPageToken,changes(changeType,removed,fileId,driveId,time,file(${FILE_FIELDS}))`,
    },
    changeList,
  );
  const folders = p.folders ? new Set(p.folders) : null;
  // The last change of a file in this page wins: read it, or delete its document.
  const outcome = new Map<string, DriveFile | 'delete'>();
  for (const c of r.changes) {
    if (c.changeType === 'drive') continue;
    const id = c.fileId ?? c.file?.id;
    if (!id) continue;
    const f = c.file;
    if (c.removed || !f) {
      // Deleted for good, or no longer visible to the account.
      outcome.set(id, 'delete');
      folders?.delete(id);
      continue;
    }
    if (f.mimeType === FOLDER_MIME) {
      if (folders && !ctx.settings.folder_ids?.includes(id)) {
        if (!f.trashed && (f.parents ?? []).some((x) => folders.has(x))) folders.add(id);
        else folders.delete(id);
      }
      continue;
    }
    // Trashed, moved out of scope, or no longer a wanted type: not (or no longer) a document.
    outcome.set(id, inScope(f, ctx.settings, folders) ? f : 'delete');
  }
  const toRead = [...outcome.values()].filter((x): x is DriveFile => x !== 'delete');
  const deleted = [...outcome].filter(([, x]) => x === 'delete').map(([id]) => externalId(id));
  const { documents, skipped, gone } = await readFiles(ctx, toRead, p.account);
  const next: DrivePage = { ...p, folders: folders ? [...folders] : null, pageToken: r.nextPageToken ?? null };
  const token = r.nextPageToken ?? r.newStartPageToken;
  if (!token) throw new Error('Google Drive answered changes.list with neither nextPageToken nor newStartPageToken');
  return {
    documents,
    skipped,
    deleted: [...deleted, ...gone],
    next: r.nextPageToken ? next : null,
    cursor: cursorOf(ctx.settings, next, token),
  };
}

export const driveSync: SyncCapability<DriveCredentials, DriveSettings, DriveCursor, DrivePage> = {
  cursorSchema: driveCursor,
  pageSchema: drivePage,
  start(mode: SyncMode, since: DriveCursor | null, settings: DriveSettings): DrivePage {
    // A cursor built for other folder_ids does not know which folders are in scope now: list again.
    const usable = mode === 'incremental' && since && sameRoots(since.folder_roots, settings.folder_ids) ? since : null;
    return { mode, phase: 'setup', account: null, startToken: null, units: [], folders: usable?.folders ?? null, pageToken: usable?.page_token ?? null };
  },
  async readPage(ctx, p) {
    if (p.phase === 'setup') return setup(ctx, p);
    if (p.phase === 'list') return list(ctx, p);
    return changes(ctx, p);
  },
};
