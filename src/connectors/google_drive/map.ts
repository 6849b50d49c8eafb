import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import type { DriveFile, SupportedMimeType } from './schemas.ts';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';
const DOC = 'application/vnd.google-apps.document';
const SHEET = 'application/vnd.google-apps.spreadsheet';
const SLIDES = 'application/vnd.google-apps.presentation';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * How a file's text is read: Google's own types are exported (Docs and Slides as text/plain, Sheets as text/csv —
 * the first sheet, as Google exports it), everything else is downloaded (`alt=media`) and parsed as the file name
 * says (`parseFile` picks the parser by extension).
 */
export type ContentPlan = { readonly via: 'export'; readonly mimeType: string; readonly parseAs: string } | { readonly via: 'download'; readonly parseAs: string };

export const CONTENT: Readonly<Record<SupportedMimeType, ContentPlan>> = {
  [DOC]: { via: 'export', mimeType: 'text/plain', parseAs: 'export.txt' },
  [SHEET]: { via: 'export', mimeType: 'text/csv', parseAs: 'export.csv' },
  [SLIDES]: { via: 'export', mimeType: 'text/plain', parseAs: 'export.txt' },
  'application/pdf': { via: 'download', parseAs: 'file.pdf' },
  [DOCX]: { via: 'download', parseAs: 'file.docx' },
  'text/plain': { via: 'download', parseAs: 'file.txt' },
  'text/markdown': { via: 'download', parseAs: 'file.md' },
  'text/html': { via: 'download', parseAs: 'file.html' },
  'text/csv': { via: 'download', parseAs: 'file.csv' },
};

export function contentPlan(mimeType: string): ContentPlan | null {
  return (CONTENT as Record<string, ContentPlan | undefined>)[mimeType] ?? null;
}

export function documentType(mimeType: string): string {
  if (mimeType === DOC || mimeType === DOCX) return 'document';
  if (mimeType === SHEET) return 'spreadsheet';
  if (mimeType === SLIDES) return 'presentation';
  if (mimeType === 'application/pdf') return 'pdf';
  return 'file';
}

export const externalId = (fileId: string) => `file:${fileId}`;
/** The group standing for a shared drive's members (each of them can read every file in it). */
export const driveGroup = (driveId: string) => `google_drive:${driveId}`;

const uniq = (xs: readonly string[]) => [...new Set(xs)].sort();

/**
 * Who can read the file, in the shared ACL shape. Drive's `permissions` (readable only by accounts that may share the
 * file): user → email, group → `google_drive:<group email>`, domain → domain, anyone → public. A shared drive's files
 * carry no `permissions` in listings: its members (the drive group) can read them. A My Drive file whose permissions
 * the account cannot see: its owners and the connected account, the readers known for sure.
 */
export function fileAcl(file: DriveFile, account: string | null): SourceAcl {
  const users: string[] = [];
  const groups: string[] = [];
  const domain: string[] = [];
  let isPublic = false;
  if (file.driveId) groups.push(driveGroup(file.driveId));
  const perms = file.permissions?.filter((p) => !p.deleted);
  if (perms) {
    for (const p of perms) {
      const email = p.emailAddress?.toLowerCase();
      if (p.type === 'user' && email) users.push(email);
      else if (p.type === 'group' && email) groups.push(`google_drive:${email}`);
      else if (p.type === 'domain' && p.domain) domain.push(p.domain.toLowerCase());
      else if (p.type === 'anyone') isPublic = true;
    }
  } else if (!file.driveId) {
    for (const o of file.owners ?? []) if (o.emailAddress) users.push(o.emailAddress.toLowerCase());
    if (account) users.push(account.toLowerCase());
  }
  return {
    ...(isPublic ? { public: true } : {}),
    ...(domain.length > 0 ? { domain: uniq(domain) } : {}),
    ...(users.length > 0 ? { users: uniq(users) } : {}),
    ...(groups.length > 0 ? { groups: uniq(groups) } : {}),
  };
}

const MAX_CONTENT = 5_000_000;

/** A Drive file and its extracted text as a document. */
export function fileToDocument(file: DriveFile, content: string, account: string | null): SourceDocument {
  const author = (file.owners?.[0]?.emailAddress ?? file.lastModifyingUser?.emailAddress)?.toLowerCase();
  return {
    external_id: externalId(file.id),
    title: file.name.slice(0, 2000),
    // Google exports end lines with CRLF (CSV, text/plain).
    content: content.replace(/\r\n?/g, '\n').trim().slice(0, MAX_CONTENT),
    url: file.webViewLink ?? `https://drive.google.com/open?id=${encodeURIComponent(file.id)}`,
    ...(author ? { author } : {}),
    document_type: documentType(file.mimeType),
    ...(file.createdTime ? { created_at: file.createdTime } : {}),
    ...(file.modifiedTime ? { updated_at: file.modifiedTime } : {}),
    metadata: {
      drive_file_id: file.id,
      mime_type: file.mimeType,
      drive_id: file.driveId ?? null,
      parents: file.parents ?? [],
      ...(file.size ? { size: Number(file.size) } : {}),
      ...(file.description ? { description: file.description } : {}),
      ...(file.lastModifyingUser?.emailAddress ? { last_modified_by: file.lastModifyingUser.emailAddress.toLowerCase() } : {}),
    },
    acl: fileAcl(file, account),
  };
}
