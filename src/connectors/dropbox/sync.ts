import { z } from 'zod';
import { type Page, parseFile, type SourceContext, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode } from '../kit/index.ts';
import { resolveChanges, storedPathMap } from './changes.ts';
import { DropboxEndpointError, download, rpc, TooLargeError } from './client.ts';
import { EXTERNAL_PREFIX, externalId, fileToDocument, inScope } from './map.ts';
import { type DropboxCredentials, type DropboxSettings, type FileEntry, fullAccount, listFolderResult, type ListFolderResult } from './schemas.ts';

type Ctx = SourceContext<DropboxCredentials, DropboxSettings>;

/** Entries per listing page (approximate, Dropbox may return a few more); each file costs one download. */
const PAGE_LIMIT = 100;
const MB = 1024 * 1024;

export const dropboxPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'list', 'changes']),
  /** The connected account's email (lower-cased): author and reader of every file it lists. */
  account: z.string().nullable(),
  /** The list_folder cursor for the next `list_folder/continue`; null = call `list_folder` first. */
  cursor: z.string().nullable(),
  /**
   * An incremental sync that has to list everything (no usable cursor, or Dropbox reset it): the ids seen so far, so
   * the last page can remove what the listing no longer holds (an incremental run has no engine sweep). Null otherwise.
   */
  seen: z.array(z.string()).nullable(),
});
export type DropboxPage = z.infer<typeof dropboxPage>;

export const dropboxCursor = z.object({
  cursor: z.string(),
  /** The `path` setting the cursor lists: a cursor for another folder is not used (the sync lists again). */
  path: z.string(),
});
export type DropboxCursor = z.infer<typeof dropboxCursor>;

type Read = { doc: SourceDocument } | { skip: string } | { gone: true };

async function readFile(ctx: Ctx, file: FileEntry, account: string): Promise<Read> {
  let bytes: Uint8Array;
  try {
    bytes = await download(ctx, file.id, ctx.settings.max_file_size_mb * MB);
  } catch (err) {
    if (err instanceof TooLargeError) return { gone: true };
    if (err instanceof DropboxEndpointError) {
      // Deleted or moved away since it was listed, or a type Dropbox only exports: not a document now.
      if (err.is('path', 'not_found') || err.is('unsupported_file')) return { gone: true };
      // restricted_content and the like: this file is unreadable, the sync goes on.
      return { skip: err.summary || err.tags.join('/') };
    }
    throw err;
  }
  try {
    const parsed = await parseFile(file.name, bytes);
    return { doc: fileToDocument(file, parsed.content, account) };
  } catch (err) {
    return { skip: `cannot extract text: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200) };
  }
}

async function readFiles(ctx: Ctx, files: readonly FileEntry[], account: string) {
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

const cursorOf = (ctx: Ctx, cursor: string): DropboxCursor => ({ cursor, path: ctx.settings.path });

async function setup(ctx: Ctx, p: DropboxPage): Promise<Page<DropboxPage, DropboxCursor>> {
  const me = await rpc(ctx, 'users/get_current_account', null, fullAccount);
  const account = me.email.toLowerCase();
  if (p.mode === 'incremental' && p.cursor) return { documents: [], next: { ...p, phase: 'changes', account }, cursor: null };
  return { documents: [], next: { ...p, phase: 'list', account, cursor: null, seen: p.mode === 'incremental' ? [] : null }, cursor: null };
}

/** A full listing of `path` (recursive): list_folder, then list_folder/continue while has_more; its last cursor reads the changes after it. */
async function list(ctx: Ctx, p: DropboxPage): Promise<Page<DropboxPage, DropboxCursor>> {
  const account = p.account ?? '';
  let r: ListFolderResult;
  try {
    r = p.cursor
      ? await rpc(ctx, 'files/list_folder/continue', { cursor: p.cursor }, listFolderResult)
      : await rpc(
          ctx,
          'files/list_folder',
          // include_deleted stays false: a listing needs what exists; list_folder/continue reports deletions after it anyway.
          { path: ctx.settings.path, recursive: true, include_deleted: false, include_non_downloadable_files: false, limit: PAGE_LIMIT },
          listFolderResult,
        );
  } catch (err) {
    if (err instanceof DropboxEndpointError && err.is('path')) {
      throw new SourceSettingsError(`path: '${ctx.settings.path}' is not a folder the connected Dropbox account can read (${err.tags.slice(1).join('/') || err.summary})`);
    }
    // A listing cursor can be reset mid-listing too: start the listing over.
    if (err instanceof DropboxEndpointError && err.is('reset')) return { documents: [], next: { ...p, cursor: null, seen: p.seen ? [] : null }, cursor: null };
    throw err;
  }
  const files = r.entries.filter((e): e is FileEntry => e['.tag'] === 'file' && inScope(e, ctx.settings));
  const { documents, skipped, gone } = await readFiles(ctx, files, account);
  let deleted = gone;
  let seen = p.seen;
  if (seen) {
    seen = [...seen, ...documents.map((d) => d.external_id), ...skipped.map((s) => s.external_id)];
    if (!r.has_more) {
      // The relisting is complete: what is stored and was not seen is gone from the folder.
      const have = new Set(seen);
      const stored = await ctx.stored(EXTERNAL_PREFIX);
      deleted = [...new Set([...gone, ...stored.map((s) => s.external_id).filter((id) => !have.has(id))])];
    }
  }
  return {
    documents,
    skipped,
    deleted,
    next: r.has_more ? { ...p, cursor: r.cursor, seen } : null,
    cursor: r.has_more ? null : cursorOf(ctx, r.cursor),
  };
}

/** Changes after the stored cursor: list_folder/continue until has_more is false; its last cursor is the next one. */
async function changes(ctx: Ctx, p: DropboxPage): Promise<Page<DropboxPage, DropboxCursor>> {
  if (!p.cursor) throw new Error('Dropbox changes phase without a cursor');
  const account = p.account ?? '';
  let r: ListFolderResult;
  try {
    r = await rpc(ctx, 'files/list_folder/continue', { cursor: p.cursor }, listFolderResult);
  } catch (err) {
    // Dropbox invalidated the cursor (409 reset): list everything again, removing what is gone at the end.
    if (err instanceof DropboxEndpointError && err.is('reset')) {
      ctx.log.info({ connectorId: ctx.connectorId }, 'Dropbox reset the list_folder cursor; listing again');
      return { documents: [], next: { ...p, phase: 'list', cursor: null, seen: [] }, cursor: null };
    }
    if (err instanceof DropboxEndpointError && err.is('path')) {
      throw new SourceSettingsError(`path: '${ctx.settings.path}' is no longer a folder the connected Dropbox account can read (${err.tags.slice(1).join('/') || err.summary})`);
    }
    throw err;
  }
  const storedPaths = r.entries.length > 0 ? storedPathMap(await ctx.stored(EXTERNAL_PREFIX)) : new Map<string, string>();
  const { upsert, deleted } = resolveChanges(r.entries, storedPaths, ctx.settings);
  const { documents, skipped, gone } = await readFiles(ctx, upsert, account);
  return {
    documents,
    skipped,
    deleted: [...deleted, ...gone.filter((id) => storedPaths.has(id))],
    next: r.has_more ? { ...p, cursor: r.cursor } : null,
    cursor: cursorOf(ctx, r.cursor),
  };
}

export const dropboxSync: SyncCapability<DropboxCredentials, DropboxSettings, DropboxCursor, DropboxPage> = {
  cursorSchema: dropboxCursor,
  pageSchema: dropboxPage,
  start(mode: SyncMode, since: DropboxCursor | null, settings: DropboxSettings): DropboxPage {
    // A cursor lists one folder: after `path` changed it would miss the new folder's files, so the sync lists again.
    const usable = mode === 'incremental' && since && since.path === settings.path ? since.cursor : null;
    return { mode, phase: 'setup', account: null, cursor: usable, seen: null };
  },
  async readPage(ctx, p) {
    if (p.phase === 'setup') return setup(ctx, p);
    if (p.phase === 'list') return list(ctx, p);
    return changes(ctx, p);
  },
};
