import { type KindDefinition, validateWith } from '../kit/index.ts';
import { graphApiBase, graphGet } from './client.ts';
import { type TeamsCredentials, type TeamsSettings, teamsCredentials, teamsSettings } from './schemas.ts';
import { type TeamsCursor, type TeamsPage, teamsSync } from './sync.ts';

/** Microsoft Teams (chat) through Microsoft Graph v1.0: joined teams, their channels, channel messages and replies. */
export const teamsKind: KindDefinition<TeamsCredentials, TeamsSettings, TeamsCursor, TeamsPage> = {
  type: 'teams',
  displayName: 'Microsoft Teams',
  category: 'chat',
  group: 'productivity',
  authTypes: ['oauth2'],
  credentials: teamsCredentials,
  settings: teamsSettings,
  contentTypes: ['channel_messages', 'replies'],
  // Graph's Teams service limits: at most 4 requests per second per app on a given team or channel (GET channel
  // message: 20 rps per app per tenant). A sync reads one channel at a time, so 4/s is the binding one.
  vendorLimits: { perSecond: 4 },
  apiBaseUrl: (settings) => (settings.graph_url ? graphApiBase(settings) : undefined),
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    if (!ctx.credentials.access_token) return { ok: false as const, message: 'no Microsoft Graph token: connect the connector with OAuth' };
    const me = await graphGet<{ displayName?: string | null; mail?: string | null; userPrincipalName?: string | null }>(ctx, '/me');
    const account = me.mail ?? me.userPrincipalName ?? me.displayName ?? undefined;
    return account ? { account } : {};
  }),
  sync: teamsSync,
  oauth: {
    // Microsoft identity platform v2 (work or school accounts of any tenant); offline_access yields a refresh token.
    authorizeUrl: 'https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/organizations/oauth2/v2.0/token',
    // GroupMember.Read.All and ChannelMember.Read.All: who reads each channel (members.ts); both need an admin's consent.
    scopes: ['Team.ReadBasic.All', 'Channel.ReadBasic.All', 'ChannelMessage.Read.All', 'GroupMember.Read.All', 'ChannelMember.Read.All', 'offline_access', 'User.Read'],
  },
};
