import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * A Coda API token (coda.io/account → API settings), sent as a bearer token. Coda's REST API has no OAuth 2.0 for
 * third-party apps (its OAuth support is for Packs calling other services), so the token is the only credential.
 */
export const codaCredentials = z
  .object({
    api_token: z.string().trim().min(1).describe('a Coda API token (coda.io/account → API settings → Generate API token; read access is enough)'),
  })
  .strict();
export type CodaCredentials = z.infer<typeof codaCredentials>;

/** A Coda doc id: the part after `_d` in a doc URL (coda.io/d/Name_d<docId>). */
const DOC_ID = /^[A-Za-z0-9_-]{4,64}$/;

export const codaSettings = z
  .object({
    docs: z
      .array(z.string().trim().regex(DOC_ID, 'a Coda doc id: the part after "_d" in coda.io/d/Name_d<docId>'))
      .min(1)
      .optional()
      .describe('doc ids to sync; default every doc the token can read'),
    workspace_id: z
      .string()
      .trim()
      .regex(/^ws-[A-Za-z0-9_-]+$/, 'a Coda workspace id such as ws-AbCdEf12')
      .optional()
      .describe('sync only the docs of this workspace (ws-…)'),
    include_pages: z.boolean().default(true).describe('sync canvas pages, exported as Markdown'),
    include_tables: z.boolean().default(true).describe('sync the rows of base tables (views are skipped: they repeat their table)'),
    ...commonSettings,
  })
  .strict();
export type CodaSettings = z.infer<typeof codaSettings>;
