import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/** The CRM objects the connector reads, in the order a sync reads them. */
export const OBJECT_TYPES = ['companies', 'contacts', 'deals', 'tickets', 'notes'] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/**
 * A private app's access token (`pat-…`, sent as a bearer token like OAuth's) or OAuth 2.0: the OAuth result arrives as
 * `access_token`. Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const hubspotCredentials = z
  .object({
    private_app_token: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('a private app access token (Settings → Integrations → Private apps; scopes crm.objects.*.read, tickets); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict();
export type HubSpotCredentials = z.infer<typeof hubspotCredentials>;

export const hubspotSettings = z
  .object({
    object_types: z
      .array(z.enum(OBJECT_TYPES))
      .min(1)
      .optional()
      .describe('CRM objects to sync: companies, contacts, deals, tickets, notes (default all)'),
    portal_id: z
      .string()
      .regex(/^\d+$/, 'the numeric HubSpot account (portal / hub) id')
      .optional()
      .describe('the HubSpot account id used in record links; discovered from /account-info/v3/details when omitted'),
    ui_domain: z
      .string()
      .regex(/^app(-[a-z0-9]+)?\.hubspot\.com$/, 'a HubSpot app domain such as app.hubspot.com or app-eu1.hubspot.com')
      .optional()
      .describe('the HubSpot app domain of the account (app.hubspot.com, app-eu1.hubspot.com); discovered with portal_id'),
    ...commonSettings,
  })
  .strict();
export type HubSpotSettings = z.infer<typeof hubspotSettings>;
