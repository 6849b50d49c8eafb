/** Every permission an API key or a session role can carry. docs/api.md lists which endpoint needs which. */
export const PERMISSIONS = ['query', 'connector:read', 'connector:write', 'admin', 'act_as', 'ai_usage:read'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What the caller of an endpoint is: a principal always belongs to exactly one tenant. */
export interface Principal {
  /** `oauth`: an access token issued to an MCP client (src/auth/oauth-server), for the MCP endpoint only. */
  readonly kind: 'api_key' | 'session' | 'bootstrap' | 'oauth';
  /** Key id or session id: what audit records as the actor. */
  readonly id: string;
  readonly tenantId: string;
  /** The person behind a session, or the key's name for API keys. */
  readonly userId: string;
  /**
   * The person this credential is, lower-cased (an SSO session's user; a person-bound key's identity): retrieval
   * answers that person's view. Absent/null = a service key (documents everyone may read, or act_as per request).
   */
  readonly email?: string | null;
  readonly permissions: ReadonlySet<Permission>;
  /**
   * The person this request (or MCP connection) names with `X-Atrium-Act-As`; honoured only with the `act_as`
   * permission (identity/view.ts refuses it otherwise).
   */
  readonly actAs?: string;
}

/**
 * `admin` implies every other permission but `act_as`: reading as another person is granted explicitly
 * (an admin's way to every document is the audited `bypass_acl`).
 */
export function can(principal: Pick<Principal, 'permissions'>, permission: Permission): boolean {
  if (permission === 'act_as') return principal.permissions.has('act_as');
  return principal.permissions.has('admin') || principal.permissions.has(permission);
}

/**
 * The ACL group every document of an `llm_providers` connector is stored with (usage, audit events, conversations:
 * sensitive, docs/ai-usage.md): a credential reading as itself holds it with `ai_usage:read` (or `admin`).
 */
export const AI_USAGE_GROUP = 'atrium:ai_usage';

/** The ACL groups a credential's own permissions grant in its retrieval view (identity/view.ts). */
export function permissionGroups(principal: Pick<Principal, 'permissions'>): string[] {
  return can(principal, 'ai_usage:read') ? [AI_USAGE_GROUP] : [];
}

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Permissions of a signed-in user's role (SSO group mapping assigns the role). */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  admin: ['admin', 'query', 'connector:read', 'connector:write'],
  member: ['query', 'connector:read', 'connector:write'],
  viewer: ['query', 'connector:read'],
};
