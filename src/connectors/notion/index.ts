import type { KindDefinition } from '../kit/index.ts';
import { notionActions } from './actions.ts';
import { mapNotionError, notionCall } from './client.ts';
import { type NotionCredentials, type NotionSettings, notionCredentials, notionSettings } from './schemas.ts';
import { type NotionCursor, type NotionPageState, notionSync } from './sync.ts';

/** Notion (document workspace): pages, databases (data sources) and their rows, comments, block content; page actions. */
export const notionKind: KindDefinition<NotionCredentials, NotionSettings, NotionCursor, NotionPageState> = {
  type: 'notion',
  displayName: 'Notion',
  category: 'document_workspace',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: notionCredentials,
  settings: notionSettings,
  contentTypes: ['pages', 'databases', 'database_rows', 'comments', 'blocks'],
  // Notion allows an average of three requests per second per integration.
  vendorLimits: { perSecond: 3 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  async validate(ctx) {
    if (!ctx.credentials.access_token) return { ok: false, message: 'no Notion token: supply credentials.access_token or complete OAuth' };
    try {
      const me = await notionCall<{ name?: string | null; bot?: { workspace_name?: string | null } }>(ctx, (c) => c.users.me({}));
      return { ok: true, account: [me.name, me.bot?.workspace_name].filter(Boolean).join('@') || undefined };
    } catch (err) {
      const mapped = mapNotionError(err);
      if (mapped instanceof Error && mapped.name === 'VendorAuthError') return { ok: false, message: mapped.message };
      throw mapped;
    }
  },
  sync: notionSync,
  actions: notionActions,
  oauth: {
    authorizeUrl: 'https://api.notion.com/v1/oauth/authorize',
    tokenUrl: 'https://api.notion.com/v1/oauth/token',
    // Notion has no scopes: the user picks the pages to share; `owner=user` is required on the authorize URL.
    scopes: [],
    extraAuthorizeParams: { owner: 'user' },
  },
};
