import { GraphMembersRefused, graphGroupUsers, type SourceContext, type SourceIdentities, VendorHttpError } from '../kit/index.ts';
import { type GraphPage, graphGet, seg } from './client.ts';
import type { ChannelRef } from './map.ts';
import type { TeamsCredentials, TeamsSettings } from './schemas.ts';

type Ctx = SourceContext<TeamsCredentials, TeamsSettings>;

/** An Entra ID user as the identity directory names it (map.ts names authors without an email the same way). */
export const teamsAccount = (userId: string) => `teams:${userId}`;

interface ConversationMember {
  readonly userId?: string | null;
  readonly email?: string | null;
  readonly displayName?: string | null;
}

/**
 * Who reads each synced channel, re-read on every sync: a standard channel's team is a Microsoft 365 group (same id),
 * whose users (`/groups/{id}/transitiveMembers/microsoft.graph.user`, GroupMember.Read.All) are `teams:team:<id>`; a
 * private or shared channel has its own roster (`/teams/{id}/channels/{id}/members`, ChannelMember.Read.All) as
 * `teams:channel:<id>`. A 403 on either keeps the last known members and says so in the sync's status.
 */
export async function readChannelReaders(ctx: Ctx, channels: readonly ChannelRef[]): Promise<{ identities: SourceIdentities; notices?: string[] }> {
  const accounts = new Map<string, { account_id: string; email: string | null; display_name: string | null }>();
  const groups: { group_id: string; members: string[] }[] = [];
  const refused: string[] = [];
  const get = (pathOrLink: string) => graphGet<unknown>(ctx, pathOrLink, { forbiddenIsAuth: false });
  const add = (id: string, email: string | null | undefined, name: string | null | undefined) => {
    accounts.set(id, { account_id: teamsAccount(id), email: email ? email.toLowerCase() : null, display_name: name ?? null });
    return teamsAccount(id);
  };
  for (const teamId of new Set(channels.filter((c) => c.membershipType === 'standard').map((c) => c.teamId))) {
    try {
      const users = await graphGroupUsers(get, teamId);
      if (users) groups.push({ group_id: `teams:team:${teamId}`, members: users.map((u) => add(u.id, u.email, u.displayName)) });
    } catch (err) {
      if (!(err instanceof GraphMembersRefused)) throw err;
      refused.push('team members (GroupMember.Read.All)');
    }
  }
  for (const c of channels.filter((x) => x.membershipType !== 'standard')) {
    try {
      const members: string[] = [];
      let next: string | undefined = `/teams/${seg(c.teamId)}/channels/${seg(c.id)}/members`;
      while (next) {
        const page: GraphPage<ConversationMember> = await graphGet<GraphPage<ConversationMember>>(ctx, next, { forbiddenIsAuth: false });
        for (const m of page.value) if (m.userId) members.push(add(m.userId, m.email, m.displayName));
        next = page['@odata.nextLink'];
      }
      groups.push({ group_id: `teams:channel:${c.id}`, members });
    } catch (err) {
      if (err instanceof VendorHttpError && err.status === 404) continue;
      if (!(err instanceof VendorHttpError && err.status === 403)) throw err;
      refused.push('private and shared channel members (ChannelMember.Read.All)');
    }
  }
  const notices = refused.length > 0 ? [`Microsoft Graph refused ${[...new Set(refused)].join(' and ')}: those channels keep their last known readers.`] : undefined;
  return { identities: { accounts: [...accounts.values()], groups }, ...(notices ? { notices } : {}) };
}
