import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * Either a Zendesk API token (`email` + `api_token`, HTTP Basic `email/token:api_token`) or OAuth 2.0: the OAuth result
 * arrives as `access_token`. Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const zendeskCredentials = z
  .object({
    email: z.email().optional().describe('the email of the Zendesk admin the API token acts as (with api_token)'),
    api_token: z.string().min(1).optional().describe('a Zendesk API token (Admin Center → Apps and integrations → Zendesk API); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token (scope read); set by the OAuth flow'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.api_token && !c.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'an API token needs the email of the Zendesk user it acts as' });
    if (c.email && !c.api_token && !c.access_token) ctx.addIssue({ code: 'custom', path: ['api_token'], message: 'email without api_token: add the API token or connect with OAuth' });
  });
export type ZendeskCredentials = z.infer<typeof zendeskCredentials>;

/** A Zendesk subdomain: one DNS label (`acme` of acme.zendesk.com). */
const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const zendeskSettings = z
  .object({
    subdomain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(SUBDOMAIN, 'the subdomain only, e.g. "acme" for https://acme.zendesk.com (no scheme, dots or path)')
      .describe('your Zendesk subdomain: "acme" for https://acme.zendesk.com (API calls and ticket links go there)'),
    include_tickets: z.boolean().default(true).describe('sync Support tickets with their comments (incremental ticket export; needs an admin)'),
    include_internal_notes: z.boolean().default(true).describe('keep internal notes (private comments) in the ticket text; they are marked as such'),
    include_articles: z.boolean().default(true).describe('sync published Help Center articles (incremental article export)'),
    ...commonSettings,
  })
  .strict();
export type ZendeskSettings = z.infer<typeof zendeskSettings>;

/** https://<subdomain>.zendesk.com: the API base and the host of agent links. */
export const zendeskHost = (s: Pick<ZendeskSettings, 'subdomain'>): string => `https://${s.subdomain}.zendesk.com`;
