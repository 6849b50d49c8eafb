import { type KindDefinition, validateWith } from '../kit/index.ts';
import { gmailJson } from './client.ts';
import { type GmailCredentials, type GmailSettings, gmailCredentials, gmailSettings, profile } from './schemas.ts';
import { type GmailCursor, type GmailPage, gmailSync } from './sync.ts';

/** Gmail (email): one document per message, text bodies with From/To/Cc/Date; incremental through the mailbox history. */
export const gmailKind: KindDefinition<GmailCredentials, GmailSettings, GmailCursor, GmailPage> = {
  type: 'gmail',
  displayName: 'Gmail',
  category: 'email',
  group: 'productivity',
  // Google issues no personal API token for a mailbox: OAuth only (a service account with domain-wide delegation is not supported).
  authTypes: ['oauth2'],
  credentials: gmailCredentials,
  settings: gmailSettings,
  contentTypes: ['emails'],
  // Gmail "Usage limits": 15,000 quota units per user per minute (250 a second, moving average) and 1,200,000 per
  // project per minute; messages.get and messages.list cost 5 units, history.list 2, getProfile 1. A sync is mostly
  // messages.get, so 40 requests a second (≤ 200 units) keeps one mailbox under its per-user limit with room for the
  // user's other Gmail apps; the project limit allows ~100 mailboxes syncing at that speed at once.
  vendorLimits: { perSecond: 40 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    const me = await gmailJson(ctx, '/gmail/v1/users/me/profile', {}, profile);
    return { account: me.emailAddress.toLowerCase() };
  }),
  sync: gmailSync,
  oauth: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes: ['https://www.googleapis.com/auth/gmail.readonly'],
    // offline + consent: Google returns a refresh token (access tokens last an hour), also when the user had consented before.
    extraAuthorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  },
};
