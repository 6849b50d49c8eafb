import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const notionCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe('internal integration secret (ntn_… / secret_…) shared with the pages to index, or the OAuth access token (filled by the OAuth flow)'),
  })
  .strict();
export type NotionCredentials = z.infer<typeof notionCredentials>;

export const notionSettings = z
  .object({
    sync_archived: z.boolean().default(false).describe('also index archived (trashed) pages'),
    include_databases: z.boolean().default(true).describe('index databases (data sources) and their rows'),
    include_comments: z.boolean().default(true).describe("index comments: the page's own discussions and inline discussions on its blocks"),
    include_block_comments: z
      .boolean()
      .default(true)
      .describe('with include_comments, also list inline discussions per block: one more request for each block with content of a changed page (set false for very large workspaces)'),
    max_depth: z.number().int().min(1).max(50).default(10).describe('how deep nested blocks (toggles, lists, columns) are read, e.g. 10'),
    ...commonSettings,
  })
  .strict();
export type NotionSettings = z.infer<typeof notionSettings>;
