import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

export const outlookCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe('a Microsoft Graph delegated access token (filled by the OAuth flow) with Mail.Read and User.Read'),
  })
  .strict();
export type OutlookCredentials = z.infer<typeof outlookCredentials>;

/** A folder as Graph addresses it: a well-known name (`inbox`, `sentitems`, `archive`…) or a mailFolder id. */
const folderName = z
  .string()
  .trim()
  .min(1)
  .regex(/^[^/\\?#]+$/, 'a well-known folder name (inbox, sentitems, archive…) or a mailFolder id, without slashes');

export const outlookSettings = z
  .object({
    folders: z
      .array(folderName)
      .min(1)
      .optional()
      .describe('mail folders to sync: well-known names (inbox, sentitems, archive, drafts…) or mailFolder ids; default: every folder of the mailbox except exclude_folders'),
    exclude_folders: z
      .array(folderName)
      .default(['deleteditems', 'junkemail'])
      .describe('folders (well-known names or ids) never synced, with their child folders'),
    include_child_folders: z.boolean().default(true).describe('also sync the child folders of the synced folders (GET /me/mailFolders/{id}/childFolders)'),
    lookback_days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .describe('index only messages received in the last N days (delta $filter=receivedDateTime ge …; Graph then returns at most 5,000 messages a folder); default: every message'),
    graph_url: siteUrl('the Microsoft Graph endpoint of a national cloud, e.g. https://graph.microsoft.us (default https://graph.microsoft.com)').optional(),
    ...commonSettings,
  })
  .strict();
export type OutlookSettings = z.infer<typeof outlookSettings>;

const emailAddress = z.object({ name: z.string().nullish(), address: z.string().nullish() });
export const recipient = z.object({ emailAddress: emailAddress.nullish() });
export type Recipient = z.infer<typeof recipient>;

/** A message as delta returns it with our `$select`; a removed one carries only `id` and `@removed`. */
export const graphMessage = z.object({
  id: z.string(),
  '@removed': z.object({ reason: z.string().nullish() }).nullish(),
  subject: z.string().nullish(),
  body: z.object({ contentType: z.string().nullish(), content: z.string().nullish() }).nullish(),
  from: recipient.nullish(),
  toRecipients: z.array(recipient).nullish(),
  ccRecipients: z.array(recipient).nullish(),
  receivedDateTime: z.string().nullish(),
  lastModifiedDateTime: z.string().nullish(),
  webLink: z.string().nullish(),
  conversationId: z.string().nullish(),
});
export type GraphMessage = z.infer<typeof graphMessage>;

export const mailFolder = z.object({
  id: z.string(),
  displayName: z.string().nullish(),
  parentFolderId: z.string().nullish(),
  childFolderCount: z.number().nullish(),
  totalItemCount: z.number().nullish(),
});
export type MailFolder = z.infer<typeof mailFolder>;

export const graphUser = z.object({ id: z.string(), displayName: z.string().nullish(), mail: z.string().nullish(), userPrincipalName: z.string().nullish() });

/** An OData collection page: `value`, and `@odata.nextLink` while there is more (`@odata.deltaLink` ends a delta round). */
export const collection = <T extends z.ZodType>(item: T) =>
  z.object({ value: z.array(item), '@odata.nextLink': z.string().optional(), '@odata.deltaLink': z.string().optional() });
