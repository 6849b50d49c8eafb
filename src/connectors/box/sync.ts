import { z } from 'zod';
import {
  type Page,
  parseFile,
  type SourceContext,
  type SourceDocument,
  type SourceIdentities,
  SourceSettingsError,
  type SyncCapability,
  type SyncMode,
  VendorHttpError,
} from '../kit/index.ts';
import { BoxFileError, boxDownload, boxEvents, boxJson } from './client.ts';
import { ancestorIds, collaborators, externalId, extensionOf, fileToDocument, folderGroup, inScope, ROOT_FOLDER } from './map.ts';
import { type BoxCredentials, type BoxItem, boxItem, boxMe, type BoxSettings, collaborationPage, ITEM_FIELDS, itemPage } from './schemas.ts';

type Ctx = SourceContext<BoxCredentials, BoxSettings>;
type Identities = { accounts: NonNullable<SourceIdentities['accounts']>[number][]; groups: NonNullable<SourceIdentities['groups']>[number][] };

/** Each listed file costs one more request (its download), so listing pages stay at Box's default size. */
const ITEM_PAGE_SIZE = 100;
/** Events per chunk (Box's default is 100, its maximum 500). */
const EVENT_PAGE_SIZE = 200;
const MB = 1024 * 1024;

/** Events whose file is read again (its current state decides: stored, updated, or removed). */
const FILE_CHANGES = new Set(['ITEM_CREATE', 'ITEM_UPLOAD', 'ITEM_MODIFY', 'ITEM_RENAME', 'ITEM_MOVE', 'ITEM_COPY', 'ITEM_UNDELETE_VIA_TRASH', 'ITEM_MAKE_CURRENT_VERSION']);
const REMOVALS = new Set(['ITEM_TRASH', 'ITEM_DELETE']);
/** Folder events after which the folder is listed again (its files may have entered the scope or changed ACL groups). */
const FOLDER_WALKS = new Set(['ITEM_CREATE', 'ITEM_UPLOAD', 'ITEM_MOVE', 'ITEM_COPY', 'ITEM_UNDELETE_VIA_TRASH']);
const COLLAB_EVENTS = new Set(['COLLAB_ADD_COLLABORATOR', 'COLLAB_REMOVE_COLLABORATOR', 'COLLAB_ROLE_CHANGE', 'COLLAB_INVITE_COLLABORATOR']);

export const boxPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'run']),
  /** The connected account's login (a reader of every file it lists). */
  account: z.string().nullable(),
  /** Folders still to list (with `collabs`: read their collaborations into the identity directory first). */
  queue: z.array(z.object({ id: z.string(), collabs: z.boolean() })),
  /** `next_marker` within queue[0]. */
  marker: z.string().nullable(),
  /** The event stream position to read next; null: no events to read (a full listing). */
  position: z.string().nullable(),
  /** The stream position to store when the listing is done (taken before it began, so nothing edited meanwhile is missed). */
  cursorPosition: z.string().nullable(),
});
export type BoxPage = z.infer<typeof boxPage>;

export const boxCursor = z.object({
  stream_position: z.string(),
  /** The `folder_ids` the cursor was taken for (null: All Files). */
  folder_roots: z.array(z.string()).nullable(),
});
export type BoxCursor = z.infer<typeof boxCursor>;

const sameRoots = (a: readonly string[] | null, b: readonly string[] | undefined) => JSON.stringify([...(a ?? [])].sort()) === JSON.stringify([...(b ?? [])].sort());
const cursorOf = (s: BoxSettings, position: string | null): BoxCursor | null => (position ? { stream_position: position, folder_roots: s.folder_ids ?? null } : null);

type Read = { doc: SourceDocument } | { skip: string } | { gone: true };

async function readFile(ctx: Ctx, item: BoxItem, account: string | null): Promise<Read> {
  let bytes: Uint8Array;
  try {
    bytes = await boxDownload(ctx, item.id, ctx.settings.max_file_size_mb * MB);
  } catch (err) {
    if (!(err instanceof BoxFileError)) throw err;
    // Gone since it was listed, or over the size limit: out of scope like a file the listing no longer shows.
    if (err.status === 404 || err.reason === 'too_large') return { gone: true };
    return { skip: err.reason };
  }
  try {
    const parsed = await parseFile(`file.${extensionOf(item)}`, bytes);
    return { doc: fileToDocument(item, parsed.content, account) };
  } catch (err) {
    return { skip: `cannot extract text: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200) };
  }
}

async function readFiles(ctx: Ctx, items: readonly BoxItem[], account: string | null) {
  const documents: SourceDocument[] = [];
  const skipped: { external_id: string; reason: string }[] = [];
  const gone: string[] = [];
  for (const f of items) {
    const r = await readFile(ctx, f, account);
    if ('doc' in r) documents.push(r.doc);
    else if ('skip' in r) skipped.push({ external_id: externalId(f.id), reason: r.skip });
    else gone.push(externalId(f.id));
  }
  return { documents, skipped, gone };
}

/** A folder's accepted user collaborations, as the members of its `box:folder:<id>` group. */
async function folderMembers(ctx: Ctx, folderId: string, into: Identities): Promise<void> {
  if (folderId === ROOT_FOLDER) return;
  const collabs = [];
  let marker: string | undefined;
  do {
    let r: z.infer<typeof collaborationPage>;
    try {
      r = await boxJson(ctx, `/2.0/folders/${encodeURIComponent(folderId)}/collaborations`, { fields: 'accessible_by,role,status', limit: 1000, marker }, collaborationPage);
    } catch (err) {
      // Trashed or deleted since the event: its files are removed, its group no longer matters.
      if (err instanceof VendorHttpError && err.status === 404) return;
      throw err;
    }
    collabs.push(...r.entries);
    marker = r.next_marker || undefined;
  } while (marker);
  const { members, accounts } = collaborators(collabs);
  into.groups.push({ group_id: folderGroup(folderId), members });
  into.accounts.push(...accounts);
}

/** A folder's metadata, or null when it is gone (404) or in the trash. */
async function readFolder(ctx: Ctx, id: string): Promise<BoxItem | null> {
  try {
    const f = await boxJson(ctx, `/2.0/folders/${encodeURIComponent(id)}`, { fields: 'type,id,name,item_status,parent,path_collection' }, boxItem);
    return f.item_status && f.item_status !== 'active' ? null : f;
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

const identitiesOf = (ids: Identities): SourceIdentities | undefined =>
  ids.accounts.length + ids.groups.length > 0 ? { ...(ids.accounts.length ? { accounts: ids.accounts } : {}), ...(ids.groups.length ? { groups: ids.groups } : {}) } : undefined;

async function setup(ctx: Ctx, p: BoxPage, since: string | null): Promise<Page<BoxPage, BoxCursor>> {
  const me = await boxJson(ctx, '/2.0/users/me', { fields: 'id,name,login' }, boxMe);
  const account = me.login?.toLowerCase() ?? null;
  if (since) {
    return { documents: [], next: { ...p, phase: 'run', account, position: since, cursorPosition: since }, cursor: cursorOf(ctx.settings, since) };
  }
  // The position is taken before listing: changes made while the listing runs are read by the next incremental sync.
  const now = await boxEvents(ctx, 'now', 1);
  const roots = ctx.settings.folder_ids ?? [ROOT_FOLDER];
  const ids: Identities = { accounts: [], groups: [] };
  for (const id of roots) {
    if (id === ROOT_FOLDER) continue;
    const folder = await readFolder(ctx, id);
    if (!folder) throw new SourceSettingsError(`folder_ids: folder '${id}' does not exist, is in the trash, or is not shared with the connected account`);
    // Collaborators of the folders above a configured folder can read its files too: mirror those groups as well.
    for (const above of ancestorIds(folder)) await folderMembers(ctx, above, ids);
  }
  const next: BoxPage = { ...p, phase: 'run', account, queue: roots.map((id) => ({ id, collabs: true })), marker: null, position: null, cursorPosition: now.position };
  return { documents: [], ...(identitiesOf(ids) ? { identities: identitiesOf(ids) } : {}), next, cursor: cursorOf(ctx.settings, now.position) };
}

async function walk(ctx: Ctx, p: BoxPage): Promise<Page<BoxPage, BoxCursor>> {
  const [task, ...rest] = p.queue;
  if (!task) throw new Error('Box listing without a folder');
  const ids: Identities = { accounts: [], groups: [] };
  if (task.collabs && !p.marker) await folderMembers(ctx, task.id, ids);
  let r: z.infer<typeof itemPage>;
  try {
    r = await boxJson(ctx, `/2.0/folders/${encodeURIComponent(task.id)}/items`, { fields: ITEM_FIELDS, limit: ITEM_PAGE_SIZE, usemarker: true, marker: p.marker ?? undefined }, itemPage);
  } catch (err) {
    // A subfolder deleted since it was listed: its files are not seen (a full sync removes them).
    if (!(err instanceof VendorHttpError && err.status === 404)) throw err;
    r = { entries: [], next_marker: null };
  }
  const queued = r.entries.filter((e) => e.type === 'folder').map((e) => ({ id: e.id, collabs: true }));
  const files = r.entries.filter((e) => inScope(e, ctx.settings));
  const { documents, skipped, gone } = await readFiles(ctx, files, p.account);
  const queue = r.next_marker ? [task, ...rest, ...queued] : [...rest, ...queued];
  const next: BoxPage = { ...p, queue, marker: r.next_marker || null };
  const more = queue.length > 0 || p.position !== null;
  const ident = identitiesOf(ids);
  return { documents, skipped, deleted: gone, ...(ident ? { identities: ident } : {}), next: more ? next : null, cursor: cursorOf(ctx.settings, p.cursorPosition) };
}

/** The item an event is about: `file:<id>` / `folder:<id>` (a collaboration's source names its folder as `item`). */
function subject(e: { event_type: string; source?: { type?: string | undefined; id?: string | undefined; item?: { type: string; id: string } | null | undefined } | null | undefined }): { type: string; id: string } | null {
  const s = e.source;
  if (!s) return null;
  if (s.type === 'collaboration' && s.item) return { type: s.item.type, id: s.item.id };
  if (!s.type || !s.id) return null;
  return { type: s.type, id: s.id };
}

function folderInScope(folder: BoxItem, s: BoxSettings): boolean {
  if (!s.folder_ids || s.folder_ids.includes(ROOT_FOLDER)) return true;
  if (s.folder_ids.includes(folder.id)) return true;
  const above = ancestorIds(folder);
  return s.folder_ids.some((id) => above.includes(id));
}

async function events(ctx: Ctx, p: BoxPage): Promise<Page<BoxPage, BoxCursor>> {
  if (!p.position) throw new Error('Box events phase without a stream position');
  const chunk = await boxEvents(ctx, p.position, EVENT_PAGE_SIZE);
  // Box may repeat events (same event_id) and send them out of order: the last event of an item in the chunk wins,
  // and a file is read again to learn its current state.
  const seen = new Set<string>();
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  const collabFolders = new Set<string>();
  for (const e of chunk.entries) {
    if (seen.has(e.event_id)) continue;
    seen.add(e.event_id);
    const item = subject(e);
    if (!item) continue;
    if (COLLAB_EVENTS.has(e.event_type)) {
      if (item.type === 'folder') collabFolders.add(item.id);
      continue;
    }
    if (!FILE_CHANGES.has(e.event_type) && !REMOVALS.has(e.event_type)) continue;
    if (item.type === 'file') files.set(item.id, e.event_type);
    else if (item.type === 'folder') folders.set(item.id, e.event_type);
  }
  const deleted = new Set<string>();
  const queue = [...p.queue];
  let stored: readonly { external_id: string; metadata: Readonly<Record<string, unknown>> }[] | null = null;
  const removeUnder = async (folderId: string) => {
    stored ??= await ctx.stored('file:');
    for (const ref of stored) {
      const above = ref.metadata.path_ids;
      if (Array.isArray(above) && above.includes(folderId)) deleted.add(ref.external_id);
    }
  };
  for (const [id, type] of folders) {
    if (REMOVALS.has(type)) {
      await removeUnder(id);
      continue;
    }
    if (!FOLDER_WALKS.has(type)) continue;
    const folder = await readFolder(ctx, id);
    if (folder && folderInScope(folder, ctx.settings)) {
      if (!queue.some((t) => t.id === id)) queue.push({ id, collabs: true });
    } else await removeUnder(id);
  }
  const walked = new Set(queue.map((t) => t.id));
  const toRead: BoxItem[] = [];
  for (const [id, type] of files) {
    if (REMOVALS.has(type)) {
      deleted.add(externalId(id));
      continue;
    }
    let item: BoxItem;
    try {
      item = await boxJson(ctx, `/2.0/files/${encodeURIComponent(id)}`, { fields: ITEM_FIELDS }, boxItem);
    } catch (err) {
      if (err instanceof VendorHttpError && err.status === 404) {
        deleted.add(externalId(id));
        continue;
      }
      throw err;
    }
    // Trashed, moved out of the configured folders, renamed to an unwanted extension or grown too large: not a document any more.
    if (!inScope(item, ctx.settings)) deleted.add(externalId(id));
    // A file inside a folder listed again by this sync is read by that listing.
    else if (!ancestorIds(item).some((a) => walked.has(a))) toRead.push(item);
  }
  const ids: Identities = { accounts: [], groups: [] };
  for (const id of collabFolders) await folderMembers(ctx, id, ids);
  const { documents, skipped, gone } = await readFiles(ctx, toRead, p.account);
  for (const g of gone) deleted.add(g);
  // A file listed again by a folder walk of this sync is kept.
  for (const d of documents) deleted.delete(d.external_id);
  // An empty chunk: the stream is read up to now.
  const more = chunk.entries.length > 0;
  const next: BoxPage = { ...p, queue, marker: null, position: more ? chunk.position : null, cursorPosition: chunk.position };
  const ident = identitiesOf(ids);
  return {
    documents,
    skipped,
    deleted: [...deleted].sort(),
    ...(ident ? { identities: ident } : {}),
    next: more || queue.length > 0 ? next : null,
    cursor: cursorOf(ctx.settings, chunk.position),
  };
}

export const boxSync: SyncCapability<BoxCredentials, BoxSettings, BoxCursor, BoxPage> = {
  cursorSchema: boxCursor,
  pageSchema: boxPage,
  start(mode: SyncMode, since: BoxCursor | null, settings: BoxSettings): BoxPage {
    // A cursor taken for other folder_ids says nothing about the files now in scope: list again.
    const usable = mode === 'incremental' && since && sameRoots(since.folder_roots, settings.folder_ids) ? since : null;
    return { mode, phase: 'setup', account: null, queue: [], marker: null, position: usable?.stream_position ?? null, cursorPosition: null };
  },
  async readPage(ctx, p) {
    if (p.phase === 'setup') return setup(ctx, p, p.position);
    // Folders queued by events are listed before the stream is read further.
    if (p.queue.length > 0) return walk(ctx, p);
    return events(ctx, p);
  },
};
