import path from 'node:path';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import type { DropboxSettings, FileEntry } from './schemas.ts';

/** Dropbox file ids (`id:a4ayc_80_OEAAAAAAAAAXw`) stay the same when a file is moved or renamed. */
export const externalId = (dropboxId: string): string => `file:${dropboxId.replace(/^id:/, '')}`;
export const EXTERNAL_PREFIX = 'file:';

export const extensionOf = (name: string): string => path.extname(name).toLowerCase();

const TYPES: Record<string, string> = {
  '.pdf': 'pdf',
  '.docx': 'document',
  '.md': 'document',
  '.markdown': 'document',
  '.mdx': 'document',
  '.txt': 'document',
  '.text': 'document',
  '.rst': 'document',
  '.log': 'document',
  '.html': 'web_page',
  '.htm': 'web_page',
  '.xhtml': 'web_page',
  '.csv': 'spreadsheet',
};

/** By extension: `pdf`, `document` (Word, Markdown, text), `web_page`, `spreadsheet` (CSV), else `file`. */
export const documentType = (name: string): string => TYPES[extensionOf(name)] ?? 'file';

/** The group standing for a shared folder's members (each of them can read every file in it). */
export const sharedFolderGroup = (sharedFolderId: string): string => `dropbox:shared_folder:${sharedFolderId}`;

const MB = 1024 * 1024;

/** Whether a listed file becomes a document: a wanted extension, not too large, downloadable (not a Paper or Google doc). */
export function inScope(file: FileEntry, settings: Pick<DropboxSettings, 'file_extensions' | 'max_file_size_mb'>): boolean {
  if (!file.is_downloadable) return false;
  if (file.size > settings.max_file_size_mb * MB) return false;
  return settings.file_extensions.includes(extensionOf(file.name));
}

/** Whether `p` is `root` or lies under it (Dropbox lower-cased paths). */
export function isUnder(p: string, root: string): boolean {
  return p === root || p.startsWith(`${root}/`);
}

/** `https://www.dropbox.com/home/<path>`, each segment URL-encoded. */
export function webUrl(pathDisplay: string): string {
  return `https://www.dropbox.com/home${pathDisplay.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Who can read the file: the connected account (the Dropbox it lists is its own), and, for a file inside a shared
 * folder, that folder's members as the group `dropbox:shared_folder:<id>` (members are not listed per file).
 */
export function fileAcl(file: FileEntry, accountEmail: string): SourceAcl {
  const shared = file.sharing_info?.parent_shared_folder_id;
  return { users: [accountEmail.toLowerCase()], ...(shared ? { groups: [sharedFolderGroup(shared)] } : {}) };
}

const MAX_CONTENT = 5_000_000;

/** A Dropbox file and its extracted text as a document. */
export function fileToDocument(file: FileEntry, content: string, accountEmail: string): SourceDocument {
  const display = file.path_display ?? file.path_lower ?? `/${file.name}`;
  return {
    external_id: externalId(file.id),
    title: file.name.slice(0, 2000),
    content: content.replace(/\r\n?/g, '\n').trim().slice(0, MAX_CONTENT),
    url: webUrl(display),
    author: accountEmail.toLowerCase(),
    document_type: documentType(file.name),
    // Dropbox keeps no creation time: client_modified is the file's time on the uploading computer.
    created_at: file.client_modified,
    updated_at: file.server_modified,
    metadata: {
      dropbox_id: file.id,
      path_lower: file.path_lower ?? display.toLowerCase(),
      path_display: display,
      rev: file.rev,
      size: file.size,
      client_modified: file.client_modified,
      server_modified: file.server_modified,
      ...(file.content_hash ? { content_hash: file.content_hash } : {}),
      ...(file.sharing_info?.parent_shared_folder_id ? { shared_folder_id: file.sharing_info.parent_shared_folder_id } : {}),
      ...(file.sharing_info?.modified_by ? { modified_by: file.sharing_info.modified_by } : {}),
      ...(file.sharing_info?.read_only !== undefined ? { read_only: file.sharing_info.read_only } : {}),
    },
    acl: fileAcl(file, accountEmail),
  };
}
