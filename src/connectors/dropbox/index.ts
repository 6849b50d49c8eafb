import { type KindDefinition, validateWith } from '../kit/index.ts';
import { rpc } from './client.ts';
import { type DropboxCredentials, type DropboxSettings, dropboxCredentials, dropboxSettings, fullAccount } from './schemas.ts';
import { type DropboxCursor, type DropboxPage, dropboxSync } from './sync.ts';

/** Scoped-app permissions the connector needs: who the account is, the file tree, and file contents. */
export const DROPBOX_SCOPES = ['account_info.read', 'files.metadata.read', 'files.content.read'];

/** Dropbox (files): PDF, DOCX, Markdown, text and HTML files of the account, recursively, with list_folder cursors for changes. */
export const dropboxKind: KindDefinition<DropboxCredentials, DropboxSettings, DropboxCursor, DropboxPage> = {
  type: 'dropbox',
  displayName: 'Dropbox',
  category: 'files',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: dropboxCredentials,
  settings: dropboxSettings,
  contentTypes: ['files', 'pdfs', 'documents'],
  // Dropbox publishes no numbers: limits apply per access token (per linked user) and are "set high enough such that
  // legitimate uses of the API should rarely encounter them"; a 429 always carries Retry-After (DBX Performance Guide,
  // "Rate Limits, Retries, and Data Ingress at Scale"). 600 requests a minute (10/s) per connector, and 429s are waited out.
  vendorLimits: { perMinute: 600 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    const me = await rpc(ctx, 'users/get_current_account', null, fullAccount);
    return { account: me.email.toLowerCase() };
  }),
  sync: dropboxSync,
  oauth: {
    authorizeUrl: 'https://www.dropbox.com/oauth2/authorize',
    tokenUrl: 'https://api.dropboxapi.com/oauth2/token',
    scopes: DROPBOX_SCOPES,
    // offline: Dropbox returns a refresh token beside the short-lived (4 h) access token.
    extraAuthorizeParams: { token_access_type: 'offline' },
  },
};
