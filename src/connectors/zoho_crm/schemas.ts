import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/**
 * OAuth 2.0: the OAuth result arrives as `access_token` and the token answer's `api_domain` (the data centre's API
 * host, e.g. https://www.zohoapis.eu; kept through `oauth.tokenFields`). Empty credentials are accepted so a connector
 * can be created before its OAuth redirect.
 */
export const zohoCredentials = z
  .object({
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
    api_domain: siteUrl("the data centre's API host from the token answer, e.g. https://www.zohoapis.eu (default https://www.zohoapis.com)").optional(),
  })
  .strict();
export type ZohoCredentials = z.infer<typeof zohoCredentials>;

export const ZOHO_MODULES = ['Leads', 'Contacts', 'Accounts', 'Deals', 'Notes'] as const;
export type ZohoModule = (typeof ZOHO_MODULES)[number];

export const zohoSettings = z
  .object({
    modules: z.array(z.enum(ZOHO_MODULES)).min(1).default([...ZOHO_MODULES]).describe('modules to sync: Leads, Contacts, Accounts, Deals, Notes (default: all)'),
    crm_url: siteUrl('the CRM web host record links point to (default: derived from api_domain, e.g. https://crm.zoho.eu)').optional(),
    ...commonSettings,
  })
  .strict();
export type ZohoSettings = z.infer<typeof zohoSettings>;
