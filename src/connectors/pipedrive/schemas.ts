import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/** The entities the connector reads, in the order a sync reads them. */
export const ENTITIES = ['organizations', 'persons', 'deals', 'activities', 'notes'] as const;
export type Entity = (typeof ENTITIES)[number];

/**
 * A personal API token (Settings → Personal preferences → API; sent as the `x-api-token` header) or OAuth 2.0: the OAuth
 * result arrives as `access_token` with the company's `api_domain` from the token answer. Empty credentials are accepted
 * so a connector can be created before its OAuth redirect.
 */
export const pipedriveCredentials = z
  .object({
    api_token: z.string().trim().min(1).optional().describe('a Pipedrive personal API token (Personal preferences → API); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
    api_domain: z.string().optional().describe("the company's API domain from the OAuth token answer (e.g. https://acme.pipedrive.com); set by the OAuth flow"),
  })
  .strict();
export type PipedriveCredentials = z.infer<typeof pipedriveCredentials>;

export const pipedriveSettings = z
  .object({
    entities: z
      .array(z.enum(ENTITIES))
      .min(1)
      .optional()
      .describe('what to sync: organizations, persons, deals, activities, notes (default all)'),
    company_domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'the company subdomain, e.g. "acme" for https://acme.pipedrive.com')
      .optional()
      .describe('the company subdomain used in links (acme → https://acme.pipedrive.com); discovered from /v1/users/me when omitted'),
    ...commonSettings,
  })
  .strict();
export type PipedriveSettings = z.infer<typeof pipedriveSettings>;
