import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * Mailbox API 2.0 is OAuth 2.0 only: either an app's `client_id` + `client_secret` (the client credentials flow, for
 * your own account; the connector asks for its own tokens), or the authorization code flow, whose result arrives as
 * `access_token`. The Docs API takes its own API key (`docs_api_key`, HTTP Basic `key:X`); without it Docs is not read.
 */
export const helpscoutCredentials = z
  .object({
    client_id: z.string().min(1).optional().describe('App ID of a Help Scout "My App" (Your Profile → My Apps), for the client credentials flow'),
    client_secret: z.string().min(1).optional().describe('App Secret of that app (with client_id)'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the authorization code flow'),
    docs_api_key: z.string().min(1).optional().describe('a Docs API key (Your Profile → Authentication → API Keys) to also sync Docs articles'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.client_id && !c.client_secret) ctx.addIssue({ code: 'custom', path: ['client_secret'], message: 'client_id without client_secret: add the App Secret or connect with OAuth' });
    if (c.client_secret && !c.client_id) ctx.addIssue({ code: 'custom', path: ['client_id'], message: 'client_secret without client_id: add the App ID' });
  });
export type HelpscoutCredentials = z.infer<typeof helpscoutCredentials>;

export const helpscoutSettings = z
  .object({
    mailbox_ids: z.array(z.number().int().positive()).optional().describe('only conversations of these mailboxes (numeric ids); default: every mailbox the account can read'),
    include_conversations: z.boolean().default(true).describe('sync conversations with their threads (Mailbox API 2.0)'),
    include_notes: z.boolean().default(true).describe('keep internal notes in a conversation\'s text; they are marked as such'),
    include_articles: z.boolean().default(true).describe('sync published Docs articles (needs credentials.docs_api_key)'),
    ...commonSettings,
  })
  .strict();
export type HelpscoutSettings = z.infer<typeof helpscoutSettings>;

export const MAILBOX_API = 'https://api.helpscout.net';
export const DOCS_API = 'https://docsapi.helpscout.net';
export const HELPSCOUT_APP = 'https://secure.helpscout.net';
