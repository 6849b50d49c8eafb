import path from 'node:path';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import type { DriveItem, identitySet } from './schemas.ts';
import type { z } from 'zod';

/** A drive being synced, with what its documents need from its site (kept in the sync's page state). */
export interface DriveRef {
  readonly id: string;
  readonly name: string;
  readonly webUrl: string | null;
  readonly driveType: string | null;
  /** null for the user's OneDrive. */
  readonly siteId: string | null;
  readonly siteName: string | null;
  /** The OneDrive owner (lower-cased email, else `sharepoint:<user id>`), for its ACL. */
  readonly owner: string | null;
}

type IdentitySet = z.infer<typeof identitySet>;

/** Item ids are unique within a drive; the drive id keeps documents of different drives apart. */
export const itemExternalId = (driveId: string, itemId: string): string => `item:${driveId}:${itemId}`;

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
  '.html': 'web_page',
  '.htm': 'web_page',
  '.xhtml': 'web_page',
  '.csv': 'spreadsheet',
};

/** By extension: `pdf`, `document` (Word, Markdown, text), `web_page`, `spreadsheet` (CSV), else `file`. */
export const documentType = (name: string): string => TYPES[extensionOf(name)] ?? 'file';

/** A user as the shared ACL and author fields name them: lower-cased email, else `sharepoint:<Graph user id>`. */
export function userRef(set: IdentitySet | null | undefined): string | undefined {
  const u = set?.user;
  if (u?.email) return u.email.trim().toLowerCase();
  if (u?.id) return `sharepoint:${u.id}`;
  return undefined;
}

/**
 * Who may read the item, as far as the delta feed tells without a permissions call per item: a site library's items
 * are readable by the site's members (`sharepoint:site:<site id>`), a OneDrive's by its owner; an item shared with
 * the whole organization (or by an anonymous link) is public. Item-level grants (`shared.scope: users`) are not listed.
 */
export function itemAcl(drive: DriveRef, item: DriveItem): SourceAcl {
  const scope = item.shared?.scope;
  const wide = scope === 'organization' || scope === 'anonymous';
  return {
    ...(wide ? { public: true } : {}),
    ...(drive.siteId ? { groups: [`sharepoint:site:${drive.siteId}`] } : {}),
    ...(!drive.siteId && drive.owner ? { users: [drive.owner] } : {}),
  };
}

/**
 * The item's folder path inside its drive (`/Policies/Leave.docx`). Delta omits `parentReference.path` (a renamed
 * folder's descendants are not reported), so the path comes from the folders this run has seen, else from Graph's
 * path when present, else from the item's URL under the drive's URL; null when none tells.
 */
export function itemPath(item: DriveItem, drive: DriveRef, folders: Readonly<Record<string, string>>): string | null {
  const name = item.name ?? '';
  const parentId = item.parentReference?.id;
  if (parentId && folders[parentId] !== undefined) return `${folders[parentId]}/${name}`;
  const graphPath = item.parentReference?.path;
  if (graphPath) {
    const i = graphPath.indexOf('root:');
    if (i >= 0) return `${decodeURIComponent(graphPath.slice(i + 5))}/${name}`;
  }
  if (item.webUrl && drive.webUrl && item.webUrl.startsWith(`${drive.webUrl}/`)) {
    try {
      return `/${decodeURIComponent(item.webUrl.slice(drive.webUrl.length + 1))}`;
    } catch {
      return null;
    }
  }
  return null;
}

export function itemToDocument(item: DriveItem, drive: DriveRef, content: string, itemPathValue: string | null): SourceDocument {
  const name = item.name ?? item.id;
  const modifiedBy = userRef(item.lastModifiedBy);
  return {
    external_id: itemExternalId(drive.id, item.id),
    title: name,
    content,
    ...(item.webUrl ? { url: item.webUrl } : {}),
    ...(userRef(item.createdBy) ? { author: userRef(item.createdBy) } : {}),
    document_type: documentType(name),
    ...(item.createdDateTime ? { created_at: item.createdDateTime } : {}),
    ...(item.lastModifiedDateTime ? { updated_at: item.lastModifiedDateTime } : {}),
    metadata: {
      item_id: item.id,
      drive_id: drive.id,
      drive_name: drive.name,
      drive_type: drive.driveType,
      site_id: drive.siteId,
      site_name: drive.siteName,
      path: itemPathValue,
      mime_type: item.file?.mimeType ?? null,
      size: item.size ?? null,
      last_modified_by: modifiedBy ?? null,
      ...(item.shared?.scope ? { shared_scope: item.shared.scope } : {}),
    },
    acl: itemAcl(drive, item),
  };
}
