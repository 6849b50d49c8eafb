/** Every permission an API key or a session role can carry. The README lists which endpoint needs which. */
export const PERMISSIONS = ['query', 'connector:read', 'connector:write', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What the caller of an endpoint is: a principal always belongs to exactly one tenant. */
export interface Principal {
  readonly kind: 'api_key' | 'session' | 'bootstrap';
  /** Key id or session id: what audit records as the actor. */
  readonly id: string;
  readonly tenantId: string;
  /** The person behind a session, or the key's name for API keys. */
  readonly userId: string;
  readonly permissions: ReadonlySet<Permission>;
}

/** `admin` implies every other permission. */
export function can(principal: Pick<Principal, 'permissions'>, permission: Permission): boolean {
  return principal.permissions.has('admin') || principal.permissions.has(permission);
}

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Permissions of a signed-in user's role (SSO group mapping assigns the role). */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  admin: ['admin', 'query', 'connector:read', 'connector:write'],
  member: ['query', 'connector:read', 'connector:write'],
  viewer: ['query', 'connector:read'],
};
