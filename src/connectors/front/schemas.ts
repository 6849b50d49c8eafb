import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * A Front API token (Settings → Developers → API tokens; sent as a Bearer token) or OAuth 2.0, whose result arrives as
 * `access_token` (also Bearer). Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const frontCredentials = z
  .object({
    api_token: z.string().min(1).optional().describe('a Front API token (Settings → Developers → API tokens) with the Shared Resources scope; omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict();
export type FrontCredentials = z.infer<typeof frontCredentials>;

/** A Front inbox id as the API names it (`inb_1ix6`). */
const INBOX_ID = /^inb_[a-z0-9]+$/;

export const frontSettings = z
  .object({
    inbox_ids: z
      .array(z.string().trim().regex(INBOX_ID, 'a Front inbox id such as inb_1ix6'))
      .optional()
      .describe('only conversations in these inboxes (ids like inb_1ix6); default: every inbox the token can read'),
    include_comments: z.boolean().default(true).describe('include internal comments (teammate discussion) in a conversation\'s text, marked as such'),
    ...commonSettings,
  })
  .strict();
export type FrontSettings = z.infer<typeof frontSettings>;

/** Front's public API host; a company's own `https://<company>.api.frontapp.com` answers the same paths. */
export const FRONT_API = 'https://api2.frontapp.com';
/** Where a conversation opens in the Front app. */
export const FRONT_APP = 'https://app.frontapp.com';
