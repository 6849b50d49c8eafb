import { VendorHttpError } from './http.ts';

/** A Microsoft Graph user as the identity directory wants it. */
export interface GraphUserMember {
  readonly id: string;
  /** `mail`, else `userPrincipalName`, lower-cased; null when Graph gives neither. */
  readonly email: string | null;
  readonly displayName: string | null;
}

interface UserPage {
  readonly value?: readonly { id?: string; mail?: string | null; userPrincipalName?: string | null; displayName?: string | null }[];
  readonly '@odata.nextLink'?: string;
}

/** Graph refused to list a group's members (403: GroupMember.Read.All not granted, or the account may not read it). */
export class GraphMembersRefused extends Error {}

/**
 * A Microsoft 365 / security group's users with nested groups flattened: `GET /groups/{id}/transitiveMembers/
 * microsoft.graph.user` (the OData cast keeps users only), `$select` of the fields used, `$top=999` (the maximum),
 * following `@odata.nextLink`. Needs GroupMember.Read.All (delegated or application). `get` is the kind's Graph GET
 * (path relative to `/v1.0`, or a link Graph handed out), answering 403 as a VendorHttpError (not as rejected
 * credentials); a 403 here is GraphMembersRefused, a 404 (the group is gone) null.
 */
export async function graphGroupUsers(get: (pathOrLink: string) => Promise<unknown>, groupId: string): Promise<GraphUserMember[] | null> {
  const out: GraphUserMember[] = [];
  let next: string | undefined = `/groups/${encodeURIComponent(groupId)}/transitiveMembers/microsoft.graph.user?$select=id,displayName,mail,userPrincipalName&$top=999`;
  while (next) {
    let page: UserPage;
    try {
      page = (await get(next)) as UserPage;
    } catch (err) {
      if (err instanceof VendorHttpError && err.status === 403) throw new GraphMembersRefused(err.message);
      if (err instanceof VendorHttpError && err.status === 404) return null;
      throw err;
    }
    for (const u of page.value ?? []) {
      if (!u.id) continue;
      const email = u.mail ?? u.userPrincipalName ?? null;
      out.push({ id: u.id, email: email ? email.toLowerCase() : null, displayName: u.displayName ?? null });
    }
    next = page['@odata.nextLink'];
  }
  return out;
}
