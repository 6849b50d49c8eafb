import { z } from 'zod';
import { commonSettings, SUPPORTED_EXTENSIONS } from '../kit/index.ts';

export const dropboxCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Dropbox access token, sent as Bearer: filled and refreshed by the OAuth flow, or a token generated in the App Console (scopes account_info.read, files.metadata.read, files.content.read)',
      ),
  })
  .strict();
export type DropboxCredentials = z.infer<typeof dropboxCredentials>;

/** '' (the whole Dropbox) or a folder path `/A/B`: leading slash, no trailing slash, no empty segment. */
const folderPath = z
  .string()
  .trim()
  .transform((p) => p.replace(/\/+$/, ''))
  .pipe(z.string().regex(/^(\/[^/]+)*$/, "a folder path such as '/Projects/Atlas' (leading slash), or '' for the whole Dropbox"))
  .pipe(z.string().max(1000));

const extension = z
  .string()
  .trim()
  .transform((e) => (e.startsWith('.') ? e : `.${e}`).toLowerCase())
  .refine((e) => SUPPORTED_EXTENSIONS.includes(e), { message: `an extension Atrium parses: ${SUPPORTED_EXTENSIONS.join(', ')}` });

export const dropboxSettings = z
  .object({
    path: folderPath.default('').describe("only files under this folder, recursively (e.g. '/Projects'); default '' = the whole Dropbox the token can read"),
    file_extensions: z
      .array(extension)
      .min(1)
      .default([...SUPPORTED_EXTENSIONS])
      .describe('file extensions to index, e.g. [".pdf", ".md"] (default: every format Atrium parses — PDF, DOCX, Markdown, text, HTML, CSV)'),
    max_file_size_mb: z.number().int().min(1).max(150).default(20).describe('files larger than this (MB) are not downloaded or indexed'),
    ...commonSettings,
  })
  .strict();
export type DropboxSettings = z.infer<typeof dropboxSettings>;

// ---- Dropbox API v2 answers (files.stone, users.stone); unknown fields pass through untouched ----

const fileSharingInfo = z.object({
  read_only: z.boolean().optional(),
  parent_shared_folder_id: z.string().optional(),
  modified_by: z.string().nullish(),
});
const folderSharingInfo = z.object({
  read_only: z.boolean().optional(),
  parent_shared_folder_id: z.string().nullish(),
  shared_folder_id: z.string().nullish(),
});

export const fileEntry = z.object({
  '.tag': z.literal('file'),
  id: z.string(),
  name: z.string(),
  path_lower: z.string().nullish(),
  path_display: z.string().nullish(),
  client_modified: z.string(),
  server_modified: z.string(),
  rev: z.string(),
  size: z.number(),
  content_hash: z.string().optional(),
  is_downloadable: z.boolean().default(true),
  sharing_info: fileSharingInfo.optional(),
});
export type FileEntry = z.infer<typeof fileEntry>;

export const folderEntry = z.object({
  '.tag': z.literal('folder'),
  id: z.string(),
  name: z.string(),
  path_lower: z.string().nullish(),
  path_display: z.string().nullish(),
  sharing_info: folderSharingInfo.optional(),
});

export const deletedEntry = z.object({
  '.tag': z.literal('deleted'),
  name: z.string(),
  path_lower: z.string().nullish(),
  path_display: z.string().nullish(),
});

export const entry = z.discriminatedUnion('.tag', [fileEntry, folderEntry, deletedEntry]);
export type Entry = z.infer<typeof entry>;

export const listFolderResult = z.object({ entries: z.array(entry), cursor: z.string(), has_more: z.boolean() });
export type ListFolderResult = z.infer<typeof listFolderResult>;

export const fullAccount = z.object({
  account_id: z.string(),
  email: z.string(),
  name: z.object({ display_name: z.string().optional() }).optional(),
  disabled: z.boolean().optional(),
});
export type FullAccount = z.infer<typeof fullAccount>;
