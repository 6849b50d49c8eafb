import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * An access token: either the one the Developer Hub shows for an app on your own workspace (Configure →
 * Authentication), or the OAuth result, which arrives as the same `access_token`. Both are sent as a Bearer token.
 * Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const intercomCredentials = z
  .object({
    access_token: z.string().min(1).optional().describe('an Intercom access token (Developer Hub → your app → Configure → Authentication); set by the OAuth flow when connecting with OAuth'),
  })
  .strict();
export type IntercomCredentials = z.infer<typeof intercomCredentials>;

/** Intercom hosts each workspace in one region, with its own API host (developers.intercom.com: regional hosting). */
export const INTERCOM_REGIONS = {
  us: { api: 'https://api.intercom.io', app: 'https://app.intercom.com' },
  eu: { api: 'https://api.eu.intercom.io', app: 'https://app.eu.intercom.com' },
  au: { api: 'https://api.au.intercom.io', app: 'https://app.au.intercom.com' },
} as const;
export type IntercomRegion = keyof typeof INTERCOM_REGIONS;

export const intercomSettings = z
  .object({
    region: z.enum(['us', 'eu', 'au']).default('us').describe('where the workspace is hosted: us (api.intercom.io), eu (api.eu.intercom.io) or au (api.au.intercom.io)'),
    include_conversations: z.boolean().default(true).describe('index conversations with their parts (messages, replies, notes)'),
    include_notes: z.boolean().default(true).describe('include internal notes in a conversation\'s text (conversations are readable by teammates only)'),
    include_articles: z.boolean().default(true).describe('index Help Center articles'),
    include_draft_articles: z.boolean().default(false).describe('also index draft articles (readable by teammates only); default: published articles only'),
    ...commonSettings,
  })
  .strict();
export type IntercomSettings = z.infer<typeof intercomSettings>;
