import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * Either a Freshdesk API key (HTTP Basic `<api_key>:X`) or a Freshworks OAuth 2.0 token (`access_token`, Bearer).
 * Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const freshdeskCredentials = z
  .object({
    api_key: z.string().min(1).optional().describe("a Freshdesk API key (Profile settings → View API key); sent as HTTP Basic '<api_key>:X'"),
    access_token: z.string().min(1).optional().describe('Freshworks OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict();
export type FreshdeskCredentials = z.infer<typeof freshdeskCredentials>;

/** A bare host name: labels of letters, digits and hyphens, at least one dot. */
const HOST = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const freshdeskSettings = z
  .object({
    domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(HOST, 'a host name like "acme.freshdesk.com" (no https://, path or port)')
      .describe('your Freshdesk helpdesk host, e.g. acme.freshdesk.com (API calls and ticket links go there)'),
    include_tickets: z.boolean().default(true).describe('sync tickets with their conversations'),
    include_private_notes: z.boolean().default(true).describe('keep private notes in the ticket text; they are marked as such'),
    include_articles: z.boolean().default(true).describe('sync published solution articles (knowledge base)'),
    ...commonSettings,
  })
  .strict();
export type FreshdeskSettings = z.infer<typeof freshdeskSettings>;

export const freshdeskHost = (s: Pick<FreshdeskSettings, 'domain'>): string => `https://${s.domain}`;
