import { z } from 'zod';
import { commonSettings, SUPPORTED_EXTENSIONS } from '../kit/index.ts';

export const boxCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe('OAuth 2.0 access token (filled and refreshed by the OAuth flow), or a developer token from the Box Developer Console (valid 60 minutes)'),
    developer_token: z.string().min(1).optional().describe('a Box developer token, sent as a Bearer token (same as access_token; for trying the connector)'),
  })
  .strict();
export type BoxCredentials = z.infer<typeof boxCredentials>;

/** The token the requests carry: the OAuth (or pasted) access token, else the developer token. */
export const boxToken = (c: BoxCredentials): string | undefined => c.access_token ?? c.developer_token;

/** Extensions the kit's parsers read, without the dot: what `extensions` may name. */
export const BOX_EXTENSIONS = SUPPORTED_EXTENSIONS.map((e) => e.slice(1)) as [string, ...string[]];

const boxId = z.string().regex(/^\d{1,20}$/, 'a Box folder id (digits, as in the folder URL …/folder/<id>; 0 is All Files)');

export const boxSettings = z
  .object({
    folder_ids: z
      .array(boxId)
      .min(1)
      .optional()
      .describe('only files under these folders, recursively (ids from the folder URL https://app.box.com/folder/<id>); default: every file the account can see, from All Files (folder 0)'),
    extensions: z
      .array(z.enum(BOX_EXTENSIONS))
      .min(1)
      .optional()
      .describe(`only files with these extensions, without the dot (default: all the parsers read — ${BOX_EXTENSIONS.join(', ')})`),
    max_file_size_mb: z.number().int().min(1).max(100).default(20).describe('files larger than this (MB) are not downloaded or indexed'),
    ...commonSettings,
  })
  .strict();
export type BoxSettings = z.infer<typeof boxSettings>;

/** A mini user (`created_by`, `owned_by`, `modified_by`, `accessible_by`); the anonymous user has no login. */
export const boxUser = z.object({ type: z.string().optional(), id: z.string(), name: z.string().nullish(), login: z.string().nullish() });
export type BoxUser = z.infer<typeof boxUser>;

const pathEntry = z.object({ type: z.string().optional(), id: z.string(), name: z.string().nullish() });

/** A file or folder as the listing, `GET /files/{id}` and `GET /folders/{id}` answer it with the `fields` asked for. */
export const boxItem = z.object({
  type: z.string(),
  id: z.string(),
  name: z.string().nullish(),
  etag: z.string().nullish(),
  sequence_id: z.string().nullish(),
  sha1: z.string().nullish(),
  size: z.number().nullish(),
  extension: z.string().nullish(),
  description: z.string().nullish(),
  created_at: z.string().nullish(),
  modified_at: z.string().nullish(),
  content_modified_at: z.string().nullish(),
  item_status: z.string().nullish(),
  created_by: boxUser.nullish(),
  modified_by: boxUser.nullish(),
  owned_by: boxUser.nullish(),
  parent: pathEntry.nullish(),
  path_collection: z.object({ total_count: z.number().optional(), entries: z.array(pathEntry) }).nullish(),
  shared_link: z.object({ url: z.string().nullish(), access: z.string().nullish(), effective_access: z.string().nullish() }).nullish(),
});
export type BoxItem = z.infer<typeof boxItem>;

/** What the listing and item reads ask for (Box then returns these plus the mini fields: type, id, etag, name…). */
export const ITEM_FIELDS = [
  'type',
  'id',
  'name',
  'size',
  'extension',
  'description',
  'created_at',
  'modified_at',
  'content_modified_at',
  'item_status',
  'created_by',
  'modified_by',
  'owned_by',
  'parent',
  'path_collection',
  'shared_link',
  'sha1',
  'etag',
  'sequence_id',
].join(',');

/** `GET /folders/{id}/items?usemarker=true`: a page and the marker of the next one (null or '' after the last). */
export const itemPage = z.object({ entries: z.array(boxItem).default([]), next_marker: z.string().nullish(), limit: z.number().optional() });

export const collaboration = z.object({
  type: z.string().optional(),
  id: z.string(),
  role: z.string().nullish(),
  status: z.string().nullish(),
  accessible_by: z.object({ type: z.string(), id: z.string(), name: z.string().nullish(), login: z.string().nullish() }).nullish(),
});
export type BoxCollaboration = z.infer<typeof collaboration>;
export const collaborationPage = z.object({ entries: z.array(collaboration).default([]), next_marker: z.string().nullish() });

/** One event of `GET /events`: the source is the item (file, folder), a collaboration, or null (a locked file deleted). */
export const boxEvent = z.object({
  type: z.string().optional(),
  event_id: z.string(),
  event_type: z.string(),
  created_at: z.string().nullish(),
  source: z
    .object({ type: z.string().optional(), id: z.string().optional(), item: z.object({ type: z.string(), id: z.string() }).nullish() })
    .loose()
    .nullish(),
});
export type BoxEvent = z.infer<typeof boxEvent>;
export const eventPage = z.object({ chunk_size: z.number().optional(), entries: z.array(boxEvent).default([]) });

export const boxMe = z.object({ id: z.string(), name: z.string().nullish(), login: z.string().nullish() });
