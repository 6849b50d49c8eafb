import { ROLES, type Role } from '../access/index.ts';

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };

/**
 * The role of a signed-in user: the most privileged role any of their IdP groups maps to, else the tenant's
 * default role (`viewer` unless changed). Group names match exactly (case-sensitive, as IdPs send them).
 */
export function roleForGroups(groups: readonly string[], mapping: Readonly<Record<string, Role>>, defaultRole: Role): Role {
  let best: Role | null = null;
  for (const g of groups) {
    const r = Object.hasOwn(mapping, g) ? mapping[g] : undefined;
    if (r && ROLES.includes(r) && (best === null || RANK[r] > RANK[best])) best = r;
  }
  return best ?? defaultRole;
}
