import { z } from 'zod';
import { commonSettings, SUPPORTED_EXTENSIONS, siteUrl } from '../kit/index.ts';

const APP_ONLY = ['tenant_id', 'client_id', 'client_secret'] as const;

/**
 * Delegated (OAuth, merged in as `access_token`) or app-only (client credentials: the three Entra ID app fields,
 * exchanged for a Graph token by the connector). Empty until OAuth completes.
 */
export const sharepointCredentials = z
  .object({
    access_token: z.string().min(1).optional().describe('a Microsoft Graph access token (filled in by OAuth; Sites.Read.All Files.Read.All User.Read)'),
    tenant_id: z.string().min(1).optional().describe('app-only: the Entra ID tenant id or domain (e.g. contoso.onmicrosoft.com)'),
    client_id: z.string().min(1).optional().describe('app-only: the application (client) id of an app granted Sites.Read.All and Files.Read.All application permissions'),
    client_secret: z.string().min(1).optional().describe('app-only: a client secret of that app'),
  })
  .strict()
  .superRefine((c, ctx) => {
    const given = APP_ONLY.filter((k) => c[k] !== undefined);
    if (given.length === 0 || given.length === APP_ONLY.length) return;
    for (const k of APP_ONLY.filter((x) => c[x] === undefined)) {
      ctx.addIssue({ code: 'custom', path: [k], message: `app-only credentials need ${APP_ONLY.join(', ')} together` });
    }
  });
export type SharepointCredentials = z.infer<typeof sharepointCredentials>;

export const appOnly = (c: SharepointCredentials): c is SharepointCredentials & Required<Pick<SharepointCredentials, (typeof APP_ONLY)[number]>> =>
  !c.access_token && APP_ONLY.every((k) => Boolean(c[k]));

const extension = z
  .string()
  .regex(/^\.[A-Za-z0-9_+-]+$/, 'an extension with its leading dot, e.g. ".docx"')
  .transform((e) => e.toLowerCase())
  .refine((e) => SUPPORTED_EXTENSIONS.includes(e), { message: `not a format Atrium can read; supported: ${SUPPORTED_EXTENSIONS.join(' ')}` });

export const sharepointSettings = z
  .object({
    site_urls: z
      .array(siteUrl('a SharePoint site URL, e.g. https://contoso.sharepoint.com/sites/marketing'))
      .optional()
      .describe('sync only these sites (with site_ids); default: every site the account can find (GET /sites?search=*)'),
    site_ids: z.array(z.string().min(1)).optional().describe('sync only these Graph site ids (hostname,site-collection-id,web-id), with site_urls'),
    include_sites: z.boolean().default(true).describe('sync SharePoint sites (false: only the OneDrive)'),
    include_onedrive: z.boolean().default(true).describe("also sync the signed-in user's OneDrive (GET /me/drive; delegated OAuth only)"),
    max_file_size_mb: z.number().int().min(1).max(250).default(25).describe('files larger than this are not downloaded or indexed'),
    file_extensions: z.array(extension).default([...SUPPORTED_EXTENSIONS]).describe('file extensions to index (default: every format Atrium parses)'),
    graph_url: siteUrl('the Microsoft Graph endpoint for national clouds (default https://graph.microsoft.com/v1.0)').optional(),
    authority_url: siteUrl('the Microsoft identity platform host for app-only tokens (default https://login.microsoftonline.com)').optional(),
    ...commonSettings,
  })
  .strict();
export type SharepointSettings = z.infer<typeof sharepointSettings>;

/** Graph `identitySet`: who created or changed an item. SharePoint adds `email` to `user`. */
const identity = z.object({ id: z.string().optional(), displayName: z.string().nullish(), email: z.string().nullish() });
export const identitySet = z.object({ user: identity.nullish(), application: identity.nullish(), group: identity.nullish() });

export const graphSite = z.object({ id: z.string(), name: z.string().nullish(), displayName: z.string().nullish(), webUrl: z.string().nullish() });
export type GraphSite = z.infer<typeof graphSite>;

export const graphDrive = z.object({ id: z.string(), name: z.string().nullish(), driveType: z.string().nullish(), webUrl: z.string().nullish(), owner: identitySet.nullish() });
export type GraphDrive = z.infer<typeof graphDrive>;

export const driveItem = z.object({
  id: z.string(),
  name: z.string().nullish(),
  webUrl: z.string().nullish(),
  size: z.number().nullish(),
  createdDateTime: z.string().nullish(),
  lastModifiedDateTime: z.string().nullish(),
  createdBy: identitySet.nullish(),
  lastModifiedBy: identitySet.nullish(),
  parentReference: z.object({ id: z.string().nullish(), driveId: z.string().nullish(), path: z.string().nullish(), siteId: z.string().nullish() }).nullish(),
  file: z.object({ mimeType: z.string().nullish() }).nullish(),
  folder: z.object({ childCount: z.number().nullish() }).nullish(),
  root: z.object({}).nullish(),
  deleted: z.object({ state: z.string().nullish() }).nullish(),
  shared: z.object({ scope: z.string().nullish(), owner: identitySet.nullish() }).nullish(),
});
export type DriveItem = z.infer<typeof driveItem>;

/** An OData collection page: `value`, and `@odata.nextLink` while there is more (`@odata.deltaLink` ends a delta). */
export const collection = <T extends z.ZodType>(item: T) =>
  z.object({ value: z.array(item), '@odata.nextLink': z.string().optional(), '@odata.deltaLink': z.string().optional() });
