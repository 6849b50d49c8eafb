import { EXTERNAL_PREFIX, externalId, inScope, isUnder } from './map.ts';
import type { DropboxSettings, Entry, FileEntry } from './schemas.ts';

/**
 * What one `list_folder/continue` page of changes means for the stored documents, applied in order as Dropbox
 * prescribes (files.stone, `list_folder`): a file entry replaces whatever was at its path (and that thing's
 * children); a folder entry replaces a file at its path; a deleted entry removes what was at its path and all its
 * children. Deleted entries carry a path and no id, so `storedPaths` (external id → lower-cased path of each stored
 * document) resolves them; a moved file (deleted at its old path, listed at its new one, same id) stays.
 */
export function resolveChanges(
  entries: readonly Entry[],
  storedPaths: ReadonlyMap<string, string>,
  settings: Pick<DropboxSettings, 'file_extensions' | 'max_file_size_mb'>,
): { upsert: FileEntry[]; deleted: string[] } {
  /** Where each known document is now, as the page's entries move it. */
  const at = new Map(storedPaths);
  const outcome = new Map<string, FileEntry | 'delete'>();
  const remove = (pred: (p: string) => boolean, keep?: string) => {
    for (const [id, p] of at) {
      if (id === keep || !pred(p)) continue;
      outcome.set(id, 'delete');
      at.delete(id);
    }
  };
  for (const e of entries) {
    const p = e.path_lower;
    // Not mounted (no path): nothing in the listing's tree changes.
    if (!p) continue;
    if (e['.tag'] === 'deleted') {
      remove((x) => isUnder(x, p));
      continue;
    }
    if (e['.tag'] === 'folder') {
      remove((x) => x === p);
      continue;
    }
    const id = externalId(e.id);
    remove((x) => isUnder(x, p), id);
    if (inScope(e, settings)) {
      outcome.set(id, e);
      at.set(id, p);
    } else {
      // Now too large, renamed to an unwanted extension, or no longer downloadable: no longer a document.
      outcome.set(id, 'delete');
      at.delete(id);
    }
  }
  const upsert: FileEntry[] = [];
  const deleted: string[] = [];
  for (const [id, x] of outcome) {
    if (x === 'delete') {
      if (storedPaths.has(id)) deleted.push(id);
    } else upsert.push(x);
  }
  return { upsert, deleted };
}

/** The stored documents' paths, from the metadata each was stored with. */
export function storedPathMap(refs: readonly { external_id: string; metadata: Readonly<Record<string, unknown>> }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of refs) {
    if (!r.external_id.startsWith(EXTERNAL_PREFIX)) continue;
    const p = r.metadata.path_lower;
    if (typeof p === 'string') out.set(r.external_id, p);
  }
  return out;
}
