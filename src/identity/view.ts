import { can, normalizeEmail, type Principal, permissionGroups } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { ALL_DOCUMENTS, EVERYONE, personPrincipals, type Viewer } from '../documents/index.ts';
import type { Queryable } from '../platform/db/index.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import { cachedLookupPerson } from './person-cache.ts';

/** The request header naming the person an `act_as` credential reads as. */
export const ACT_AS_HEADER = 'x-atrium-act-as';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const looksLikeEmail = (s: string) => s.length <= 320 && EMAIL.test(s.trim());

/** What a request asks about whose documents it reads. */
export interface ViewRequest {
  /** `X-Atrium-Act-As`: needs `act_as`. */
  readonly actAs?: string;
  /** The federated query's `user_id`: an email acts as that person for `act_as` credentials; a person must name themself. */
  readonly federateUserId?: string;
  /**
   * FORWARDED_FOR_HEADER on a federation hop: the person the originating node answers. Honoured only from a credential
   * with `act_as` (the node key); from any other it is ignored and the credential's own view applies.
   */
  readonly forwardedFor?: string;
  /** `?bypass_acl=true`: admins only, audited. */
  readonly bypass?: boolean;
  /** Where the request came from, for the bypass audit event (a route, an MCP tool). */
  readonly surface?: string;
}

/** Whose view retrieval answers, and why: what `GET /v1/me` shows and what every retrieval surface filters by. */
export interface ResolvedView {
  readonly viewer: Viewer;
  /** person: an email's view; service: documents everyone may read; bypass: every document (admin, audited). */
  readonly kind: 'person' | 'service' | 'bypass';
  readonly email: string | null;
  /** True when an act_as credential named the person (header or federated user_id). */
  readonly acting: boolean;
  readonly idp_groups: readonly string[];
  readonly vendor_groups: readonly string[];
  readonly vendor_accounts: readonly string[];
  /** ACL groups the credential's own permissions grant (`atrium:ai_usage` with ai_usage:read or admin); none when acting. */
  readonly permission_groups: readonly string[];
}

export interface ViewDeps {
  readonly db: Queryable;
}

/**
 * The reader behind a request (docs/permissions.md): an admin's explicit bypass, else the person an `act_as`
 * credential names, else the credential's own person (SSO session, person-bound key), else a service view.
 * Throws 403 when the request asks for a view the credential may not take.
 */
export async function resolveView(deps: ViewDeps, principal: Principal, req: ViewRequest = {}): Promise<ResolvedView> {
  if (req.bypass) {
    if (!can(principal, 'admin')) throw Errors.viewForbidden("bypass_acl=true is for admins only: this credential lacks the 'admin' permission");
    await recordAudit(deps.db, {
      tenantId: principal.tenantId,
      action: Ops.aclBypassed,
      actorId: principal.id,
      userId: principal.userId,
      details: { surface: req.surface ?? null },
    });
    return { viewer: ALL_DOCUMENTS, kind: 'bypass', email: principal.email ?? null, acting: false, idp_groups: [], vendor_groups: [], vendor_accounts: [], permission_groups: [] };
  }
  const actAs = req.actAs?.trim();
  if (actAs !== undefined && actAs !== '') {
    if (!can(principal, 'act_as')) throw Errors.viewForbidden(`${ACT_AS_HEADER} needs the 'act_as' permission: this credential reads only as itself`);
    if (!looksLikeEmail(actAs)) throw Errors.validation(`${ACT_AS_HEADER} must be an email address`, [{ path: `headers.${ACT_AS_HEADER}`, message: 'an email address' }]);
    return personView(deps, principal.tenantId, actAs, true, []);
  }
  const forwarded = req.forwardedFor?.trim();
  if (forwarded && can(principal, 'act_as') && looksLikeEmail(forwarded)) return personView(deps, principal.tenantId, forwarded, true, []);
  const named = req.federateUserId?.trim();
  const own = principal.email ? normalizeEmail(principal.email) : null;
  if (named !== undefined && named !== '') {
    const isEmail = looksLikeEmail(named);
    if (isEmail && can(principal, 'act_as') && normalizeEmail(named) !== own) return personView(deps, principal.tenantId, named, true, []);
    // A person reads only as themself: naming someone else (by email or any other id) is refused, not ignored.
    if (own && normalizeEmail(named) !== own && named !== principal.userId) {
      throw Errors.viewForbidden(`user_id '${named}' is not this credential's person (${own}): a person-bound credential queries only as that person`);
    }
  }
  // Reading as itself, a credential also holds the groups its permissions grant (AI-provider documents with
  // ai_usage:read or admin); a person named by act_as gets exactly that person's view, without them.
  const granted = permissionGroups(principal);
  if (own) return personView(deps, principal.tenantId, own, false, granted);
  const viewer = granted.length === 0 ? EVERYONE : { principals: ['*', 'public', ...granted.map((g) => `group:${g}`)] };
  return { viewer, kind: 'service', email: null, acting: false, idp_groups: [], vendor_groups: [], vendor_accounts: [], permission_groups: granted };
}

async function personView(deps: ViewDeps, tenantId: string, email: string, acting: boolean, granted: readonly string[]): Promise<ResolvedView> {
  const person = await cachedLookupPerson(deps.db, tenantId, email);
  return {
    viewer: { principals: personPrincipals({ email: person.email, groups: [...person.idp_groups, ...person.vendor_groups, ...granted], userIds: person.accounts }) },
    kind: 'person',
    email: person.email,
    acting,
    idp_groups: person.idp_groups,
    vendor_groups: person.vendor_groups,
    vendor_accounts: person.accounts,
    permission_groups: granted,
  };
}
