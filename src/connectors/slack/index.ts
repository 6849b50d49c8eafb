import { z } from 'zod';
import { type KindDefinition, VendorAuthError } from '../kit/index.ts';
import { slackCall } from './client.ts';
import { type SlackCredentials, type SlackSettings, slackCredentials, slackSettings } from './schemas.ts';
import { type SlackCursor, type SlackPage, slackSync } from './sync.ts';
import { slackWebhook } from './webhook.ts';

/** Slack (chat): channels, messages and thread replies with authors and permalinks; Events API webhooks; post_message action. */
export const slackKind: KindDefinition<SlackCredentials, SlackSettings, SlackCursor, SlackPage> = {
  type: 'slack',
  displayName: 'Slack',
  category: 'chat',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: slackCredentials,
  settings: slackSettings,
  contentTypes: ['channels', 'messages', 'threads'],
  // conversations.history / replies are Web API Tier 3: about 50 requests per minute.
  vendorLimits: { perMinute: 50 },
  // Slack OAuth v2 (api.slack.com/authentication/oauth-v2): the token answer's access_token is the bot token.
  oauth: {
    authorizeUrl: 'https://slack.com/oauth/v2/authorize',
    tokenUrl: 'https://slack.com/api/oauth.v2.access',
    scopes: ['channels:history', 'channels:read', 'groups:history', 'groups:read', 'users:read', 'users:read.email', 'chat:write'],
    scopeSeparator: ',',
  },
  hasUsableCredentials: (c) => Boolean(c.token ?? c.access_token),
  async validate(ctx) {
    try {
      const r = await slackCall<{ user?: string; team?: string }>(ctx, 'auth.test', {});
      return { ok: true, account: [r.user, r.team].filter(Boolean).join('@') || undefined };
    } catch (err) {
      if (err instanceof VendorAuthError) return { ok: false, message: err.message };
      throw err;
    }
  },
  sync: slackSync,
  webhook: slackWebhook,
  actions: [
    {
      name: 'post_message',
      description: 'Post a message to a Slack channel (by id or name)',
      parameters: z.object({ channel: z.string().min(1), text: z.string().min(1).max(40_000) }),
      async run(ctx, params) {
        const p = z.object({ channel: z.string(), text: z.string() }).parse(params);
        const r = await slackCall<{ ts: string; channel: string }>(ctx, 'chat.postMessage', { channel: p.channel, text: p.text });
        return { channel: r.channel, ts: r.ts };
      },
    },
  ],
};
