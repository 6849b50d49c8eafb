import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * Trello's own API key + user token (the Power-Up's key and a token the user granted it), or an OAuth 2.0 access token
 * (`access_token`, set by the OAuth flow). Empty credentials are accepted so a connector can be created before its
 * OAuth redirect.
 */
export const trelloCredentials = z
  .object({
    api_key: z.string().min(1).optional().describe("the Power-Up's API key (trello.com/power-ups/admin → API key), with token"),
    token: z.string().min(1).optional().describe('a user token granted to that API key (read scope is enough)'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.token && !c.api_key) ctx.addIssue({ code: 'custom', path: ['api_key'], message: 'a Trello token needs the API key it was granted to' });
    if (c.api_key && !c.token && !c.access_token) ctx.addIssue({ code: 'custom', path: ['token'], message: 'api_key without token: add the user token or connect with OAuth' });
  });
export type TrelloCredentials = z.infer<typeof trelloCredentials>;

/** Trello object ids are 24 hex digits (MongoDB ObjectIds). */
const trelloId = z.string().regex(/^[0-9a-f]{24}$/, 'a Trello board id: 24 hex digits (GET /1/boards/<shortLink>?fields=id shows it)');

export const trelloSettings = z
  .object({
    boards: z.array(trelloId).max(500).optional().describe("board ids to sync (default: every board the token's member belongs to)"),
    include_comments: z.boolean().default(true).describe("append each card's comments (commentCard actions) to its text"),
    include_checklists: z.boolean().default(true).describe("append each card's checklists with their items' states"),
    include_closed_boards: z.boolean().default(false).describe('also sync closed (archived) boards'),
    ...commonSettings,
  })
  .strict();
export type TrelloSettings = z.infer<typeof trelloSettings>;
