import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const driveCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe('OAuth 2.0 access token with scope https://www.googleapis.com/auth/drive.readonly (filled and refreshed by the OAuth flow; Google has no personal API token for Drive content)'),
  })
  .strict();
export type DriveCredentials = z.infer<typeof driveCredentials>;

/** Google's own types and the common formats the kit's parsers read: what `mime_types` may name. */
export const SUPPORTED_MIME_TYPES = [
  'application/vnd.google-apps.document',
  'application/vnd.google-apps.spreadsheet',
  'application/vnd.google-apps.presentation',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/plain',
  'text/markdown',
  'text/html',
  'text/csv',
] as const;
export type SupportedMimeType = (typeof SUPPORTED_MIME_TYPES)[number];

const driveId = z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'a Drive id (letters, digits, - and _), as in the folder or shared drive URL');

export const driveSettings = z
  .object({
    include_my_drive: z.boolean().default(true).describe("index the account's My Drive and the files shared with it (ignored when folder_ids is set)"),
    include_shared_drives: z
      .boolean()
      .default(true)
      .describe('index the shared drives the account is a member of (all of them, or only drive_ids; ignored when folder_ids is set)'),
    drive_ids: z.array(driveId).min(1).optional().describe('only these shared drives (ids from drives.list or the drive URL); default: every shared drive the account is a member of'),
    folder_ids: z
      .array(driveId)
      .min(1)
      .optional()
      .describe('only files under these folders, recursively (folder ids from the folder URL …/folders/<id>); replaces the My Drive / shared drive scope'),
    mime_types: z
      .array(z.enum(SUPPORTED_MIME_TYPES))
      .min(1)
      .optional()
      .describe('only files of these MIME types (default: all supported — Google Docs, Sheets, Slides, PDF, DOCX, text, Markdown, HTML, CSV)'),
    max_file_size_mb: z.number().int().min(1).max(100).default(20).describe('files larger than this (MB) are not downloaded or indexed (Google exports are capped at 10 MB by Google)'),
    ...commonSettings,
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.drive_ids && !s.include_shared_drives) {
      ctx.addIssue({ code: 'custom', path: ['drive_ids'], message: 'drive_ids selects shared drives: it needs include_shared_drives true' });
    }
  });
export type DriveSettings = z.infer<typeof driveSettings>;

/** Drive v3 answers, kept to the fields requested (`fields=`); Google leaves absent what it does not know. */
export const drivePermission = z.object({
  id: z.string().optional(),
  type: z.string(),
  role: z.string().optional(),
  emailAddress: z.string().optional(),
  domain: z.string().optional(),
  deleted: z.boolean().optional(),
});
export type DrivePermission = z.infer<typeof drivePermission>;

const driveUser = z.object({ emailAddress: z.string().optional(), displayName: z.string().optional() });

export const driveFile = z.object({
  id: z.string(),
  name: z.string(),
  mimeType: z.string(),
  webViewLink: z.string().optional(),
  createdTime: z.string().optional(),
  modifiedTime: z.string().optional(),
  /** int64 as a decimal string; absent for folders and shortcuts. */
  size: z.string().optional(),
  trashed: z.boolean().optional(),
  parents: z.array(z.string()).optional(),
  driveId: z.string().optional(),
  description: z.string().optional(),
  owners: z.array(driveUser).optional(),
  lastModifyingUser: driveUser.optional(),
  permissions: z.array(drivePermission).optional(),
});
export type DriveFile = z.infer<typeof driveFile>;

/** What files.list / changes.list ask for each file (partial responses: Google returns only these). */
export const FILE_FIELDS =
  'id,name,mimeType,webViewLink,createdTime,modifiedTime,size,trashed,parents,driveId,description,owners(emailAddress,displayName),lastModifyingUser(emailAddress,displayName),permissions(id,type,role,emailAddress,domain,deleted)';

export const fileList = z.object({ nextPageToken: z.string().optional(), incompleteSearch: z.boolean().optional(), files: z.array(driveFile).default([]) });
export const driveChange = z.object({
  changeType: z.string().optional(),
  removed: z.boolean().optional(),
  fileId: z.string().optional(),
  driveId: z.string().optional(),
  time: z.string().optional(),
  file: driveFile.optional(),
});
export type DriveChange = z.infer<typeof driveChange>;
export const changeList = z.object({ nextPageToken: z.string().optional(), newStartPageToken: z.string().optional(), changes: z.array(driveChange).default([]) });
export const driveList = z.object({ nextPageToken: z.string().optional(), drives: z.array(z.object({ id: z.string(), name: z.string().optional() })).default([]) });
export const startPageToken = z.object({ startPageToken: z.string() });
export const aboutUser = z.object({ user: z.object({ emailAddress: z.string().optional(), displayName: z.string().optional(), permissionId: z.string().optional() }) });
