import type { SourceContext, SourceIdentities } from '../kit/index.ts';
import { linearRequest } from './client.ts';
import { teamGroup } from './map.ts';
import type { LinearCredentials, LinearSettings } from './schemas.ts';

type Ctx = SourceContext<LinearCredentials, LinearSettings>;

/** A Linear user as the identity directory names it. */
export const linearAccount = (userId: string) => `linear:${userId}`;

const MEMBERS = `query TeamMembers($id: String!, $after: String) {
  team(id: $id) { id members(first: 100, after: $after) { nodes { id name displayName email active } pageInfo { hasNextPage endCursor } } }
}`;

interface MembersAnswer {
  team: {
    id: string;
    members: { nodes: { id: string; name: string; displayName: string; email: string; active: boolean }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  };
}

/**
 * Each team's members (`team(id) { members }`, 100 a page): the whole member list of `linear:team:<id>`, with each
 * user's email (Linear shows it to any API key of the workspace). Deactivated users are left out of the groups.
 */
export async function readTeamMembers(ctx: Ctx, teamIds: readonly string[]): Promise<SourceIdentities> {
  const accounts = new Map<string, { account_id: string; email: string; display_name: string }>();
  const groups: { group_id: string; members: string[] }[] = [];
  for (const id of teamIds) {
    const members: string[] = [];
    let after: string | null = null;
    do {
      const r: MembersAnswer = await linearRequest<MembersAnswer>(ctx, MEMBERS, { id, after });
      for (const u of r.team.members.nodes.filter((x) => x.active)) {
        accounts.set(u.id, { account_id: linearAccount(u.id), email: u.email.toLowerCase(), display_name: u.name });
        members.push(linearAccount(u.id));
      }
      after = r.team.members.pageInfo.hasNextPage ? r.team.members.pageInfo.endCursor : null;
    } while (after);
    groups.push({ group_id: teamGroup(id), members });
  }
  return { accounts: [...accounts.values()], groups };
}
