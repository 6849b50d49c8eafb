import path from 'node:path';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import type { BoxCollaboration, BoxItem, BoxSettings } from './schemas.ts';
import { BOX_EXTENSIONS } from './schemas.ts';

export const ROOT_FOLDER = '0';
export const externalId = (fileId: string) => `file:${fileId}`;
/** The group standing for a folder's collaborators: each of them can read everything under the folder. */
export const folderGroup = (folderId: string) => `box:folder:${folderId}`;
export const fileUrl = (fileId: string) => `https://app.box.com/file/${encodeURIComponent(fileId)}`;

/** The file's extension, lower-cased, without the dot (Box's `extension` field, else from the name). */
export function extensionOf(item: Pick<BoxItem, 'extension' | 'name'>): string {
  if (item.extension) return item.extension.toLowerCase();
  return path.extname(item.name ?? '').slice(1).toLowerCase();
}

const TYPES: Record<string, string> = {
  pdf: 'pdf',
  docx: 'document',
  md: 'document',
  markdown: 'document',
  mdx: 'document',
  txt: 'document',
  text: 'document',
  rst: 'document',
  log: 'document',
  html: 'web_page',
  htm: 'web_page',
  xhtml: 'web_page',
  csv: 'spreadsheet',
};

/** By extension: `pdf`, `document` (Word, Markdown, text), `web_page`, `spreadsheet` (CSV), else `file`. */
export const documentType = (ext: string): string => TYPES[ext] ?? 'file';

/** The ids of the folders above the item, from All Files (0) down to its parent. */
export function ancestorIds(item: Pick<BoxItem, 'path_collection' | 'parent'>): string[] {
  const ids = item.path_collection?.entries.map((e) => e.id) ?? [];
  if (item.parent && !ids.includes(item.parent.id)) ids.push(item.parent.id);
  return ids;
}

const MB = 1024 * 1024;

/** Whether a file belongs in this connector: an active file of a wanted extension, not too large, under a configured folder. */
export function inScope(item: BoxItem, s: BoxSettings): boolean {
  if (item.type !== 'file' || (item.item_status && item.item_status !== 'active')) return false;
  const ext = extensionOf(item);
  if (!(s.extensions ?? BOX_EXTENSIONS).includes(ext)) return false;
  if (typeof item.size === 'number' && item.size > s.max_file_size_mb * MB) return false;
  if (!s.folder_ids || s.folder_ids.includes(ROOT_FOLDER)) return true;
  const above = ancestorIds(item);
  return s.folder_ids.some((id) => above.includes(id));
}

const uniq = (xs: readonly string[]) => [...new Set(xs)].sort();
const email = (login: string | null | undefined) => (login?.includes('@') ? login.trim().toLowerCase() : undefined);

/**
 * Who can read the file, in the shared ACL shape: its owner and the connected account (users, by login email); the
 * collaborators of every folder above it (`box:folder:<id>` groups, whose members the sync mirrors from the folders'
 * collaborations); an `open` shared link → public; a `company` shared link → the owner's email domain.
 */
export function fileAcl(item: BoxItem, account: string | null): SourceAcl {
  const users = [email(item.owned_by?.login), email(account)].filter((u): u is string => Boolean(u));
  const groups = ancestorIds(item)
    .filter((id) => id !== ROOT_FOLDER)
    .map(folderGroup);
  const access = item.shared_link?.effective_access ?? item.shared_link?.access;
  const ownerDomain = email(item.owned_by?.login)?.split('@')[1];
  return {
    ...(access === 'open' ? { public: true } : {}),
    ...(access === 'company' && ownerDomain ? { domain: [ownerDomain] } : {}),
    ...(users.length > 0 ? { users: uniq(users) } : {}),
    ...(groups.length > 0 ? { groups: uniq(groups) } : {}),
  };
}

/** The members of a folder's group: accepted user collaborations, by login email (else `box:<user id>`). */
export function collaborators(collabs: readonly BoxCollaboration[]): { members: string[]; accounts: { account_id: string; email: string | null; display_name: string | null }[] } {
  const members: string[] = [];
  const accounts: { account_id: string; email: string | null; display_name: string | null }[] = [];
  for (const c of collabs) {
    const who = c.accessible_by;
    if (who?.type !== 'user' || (c.status && c.status !== 'accepted')) continue;
    const mail = email(who.login);
    members.push(mail ?? `box:${who.id}`);
    accounts.push({ account_id: `box:${who.id}`, email: mail ?? null, display_name: who.name ?? null });
  }
  return { members: uniq(members), accounts };
}

const MAX_CONTENT = 5_000_000;

/** A Box file and its extracted text as a document. */
export function fileToDocument(item: BoxItem, content: string, account: string | null): SourceDocument {
  const ext = extensionOf(item);
  const author = email(item.created_by?.login) ?? email(item.owned_by?.login);
  const pathNames = (item.path_collection?.entries ?? []).map((e) => e.name ?? e.id);
  return {
    external_id: externalId(item.id),
    title: (item.name ?? item.id).slice(0, 2000),
    content: content.replace(/\r\n?/g, '\n').trim().slice(0, MAX_CONTENT),
    url: fileUrl(item.id),
    ...(author ? { author } : {}),
    document_type: documentType(ext),
    ...(item.created_at ? { created_at: item.created_at } : {}),
    ...(item.modified_at ? { updated_at: item.modified_at } : {}),
    metadata: {
      box_file_id: item.id,
      extension: ext,
      path: pathNames.join('/'),
      path_ids: ancestorIds(item),
      ...(typeof item.size === 'number' ? { size: item.size } : {}),
      ...(item.sha1 ? { sha1: item.sha1 } : {}),
      ...(item.description ? { description: item.description } : {}),
      ...(email(item.owned_by?.login) ? { owner: email(item.owned_by?.login) } : {}),
      ...(email(item.modified_by?.login) ? { last_modified_by: email(item.modified_by?.login) } : {}),
      ...(item.shared_link?.access ? { shared_link_access: item.shared_link.access } : {}),
    },
    acl: fileAcl(item, account),
  };
}
