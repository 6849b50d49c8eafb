import { type KindDefinition, validateWith } from '../kit/index.ts';
import { graphApiBase, LOGIN_URL } from './client.ts';
import { type OutlookCredentials, type OutlookSettings, outlookCredentials, outlookSettings } from './schemas.ts';
import { configuredFolders, mailboxOwner, type OutlookCursor, type OutlookPage, outlookSync } from './sync.ts';

/** Outlook mail (Exchange Online) through Microsoft Graph v1.0: the signed-in user's messages, per folder by `delta`. */
export const outlookKind: KindDefinition<OutlookCredentials, OutlookSettings, OutlookCursor, OutlookPage> = {
  type: 'outlook',
  displayName: 'Outlook mail',
  category: 'email',
  group: 'productivity',
  authTypes: ['oauth2'],
  credentials: outlookCredentials,
  settings: outlookSettings,
  contentTypes: ['messages'],
  // Outlook service limits (learn.microsoft.com/graph/throttling-limits#outlook-service-limits): 10,000 API requests
  // per 10 minutes per app per mailbox, and 4 concurrent requests. A bucket of 900 a minute (at most 900 + 9,000 in
  // any 10 minutes) stays under the first; a sync sends one request at a time, far under the second.
  vendorLimits: { perMinute: 900 },
  apiBaseUrl: (settings) => (settings.graph_url ? graphApiBase(settings) : undefined),
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    if (!ctx.credentials.access_token) return { ok: false as const, message: 'no Microsoft Graph token: connect the connector with OAuth' };
    const account = await mailboxOwner(ctx);
    // Configured folders that do not resolve are reported now, as a settings error, not at the first sync.
    await configuredFolders(ctx);
    return account ? { account } : {};
  }),
  sync: outlookSync,
  oauth: {
    // Microsoft identity platform v2 (work or school accounts of any tenant); offline_access yields a refresh token.
    authorizeUrl: `${LOGIN_URL}/organizations/oauth2/v2.0/authorize`,
    tokenUrl: `${LOGIN_URL}/organizations/oauth2/v2.0/token`,
    scopes: ['Mail.Read', 'offline_access', 'User.Read'],
  },
};
