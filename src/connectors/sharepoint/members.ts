import { z } from 'zod';
import { GraphMembersRefused, graphGroupUsers, type SourceContext, type SourceIdentities } from '../kit/index.ts';
import { graphGet } from './client.ts';
import type { GraphDrive } from './schemas.ts';
import type { SharepointCredentials, SharepointSettings } from './schemas.ts';

type Ctx = SourceContext<SharepointCredentials, SharepointSettings>;

/** The ACL group of a site library's items (map.ts `itemAcl`). */
export const siteGroup = (siteId: string) => `sharepoint:site:${siteId}`;

/**
 * The members of a group-connected site: its document library's `owner.group` is the site's Microsoft 365 group, and
 * that group's users (nested groups flattened, `/groups/{id}/transitiveMembers/microsoft.graph.user`) are the site's
 * members. A site without a Microsoft 365 group (a communication site: SharePoint groups, which Graph does not list)
 * is left alone. A 403 (GroupMember.Read.All not granted) keeps the last known members and says so.
 */
export async function readSiteMembers(ctx: Ctx, siteId: string, drives: readonly GraphDrive[]): Promise<{ identities?: SourceIdentities; notices?: string[] }> {
  const groupId = drives.map((d) => d.owner?.group?.id).find((id): id is string => typeof id === 'string');
  if (!groupId) return {};
  const get = (pathOrLink: string) => graphGet(ctx, pathOrLink, z.unknown(), undefined, { forbiddenIsAuth: false });
  try {
    const users = await graphGroupUsers(get, groupId);
    if (!users) return {};
    return {
      identities: {
        accounts: users.map((u) => ({ account_id: `sharepoint:${u.id}`, email: u.email, display_name: u.displayName })),
        groups: [{ group_id: siteGroup(siteId), members: users.map((u) => `sharepoint:${u.id}`) }],
      },
    };
  } catch (err) {
    if (!(err instanceof GraphMembersRefused)) throw err;
    return { notices: ['Microsoft Graph refused the sites’ group members (grant GroupMember.Read.All): site libraries keep their last known readers.'] };
  }
}
