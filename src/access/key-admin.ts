import { type AuditActor, recordAuditBy } from '../audit/index.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import { type ApiKeyRecord, createApiKey, revokeApiKey } from './api-keys.ts';
import { normalizeEmail } from './email.ts';
import { can, type Permission, type Principal } from './permissions.ts';

/** A key to create, as POST /v1/api-keys takes it (already parsed). */
export interface KeyRequest {
  readonly name: string;
  readonly permissions: readonly Permission[];
  /** The person the key reads as; null = a service key; absent = the default for the caller. */
  readonly identity?: { readonly email: string } | null;
}

/**
 * The person a new key is bound to. An admin names anyone (or nobody: a service key). A non-admin SSO session binds
 * only itself, with no more than its own permissions and never admin or act_as: a person cannot mint a key that reads
 * more than they do. Any other credential needs admin.
 */
function keyIdentity(principal: Principal, body: KeyRequest): string | null {
  if (can(principal, 'admin')) return body.identity ? normalizeEmail(body.identity.email) : null;
  if (principal.kind !== 'session' || !principal.email) throw Errors.forbidden('admin');
  const own = normalizeEmail(principal.email);
  if (body.identity === null || (body.identity && normalizeEmail(body.identity.email) !== own)) {
    throw Errors.viewForbidden(`a signed-in person creates keys bound to themself (${own}) only: binding another person or none needs admin`);
  }
  const excess = body.permissions.filter((x) => x === 'admin' || x === 'act_as' || !can(principal, x));
  if (excess.length > 0) throw Errors.forbidden(excess[0] ?? 'admin');
  return own;
}

/** Creates a key for `principal` within the binding rules above and audits `apikey.created`. */
export async function issueApiKey(db: Queryable, principal: Principal, body: KeyRequest): Promise<ApiKeyRecord & { key: string }> {
  const identityEmail = keyIdentity(principal, body);
  const created = await createApiKey(db, { tenantId: principal.tenantId, name: body.name, permissions: body.permissions, createdBy: principal.id, identityEmail });
  await recordAuditBy(db, principal, Ops.apiKeyCreated, { key_id: created.id, name: created.name, permissions: created.permissions, identity: created.identity?.email ?? null });
  return created;
}

/** Revokes a key of the actor's tenant (404 when it has none by that id) and audits `apikey.revoked`. */
export async function revokeApiKeyAs(db: Queryable, actor: AuditActor, id: string): Promise<ApiKeyRecord> {
  const revoked = await revokeApiKey(db, actor.tenantId, id);
  if (!revoked) throw Errors.notFound('api key', id);
  await recordAuditBy(db, actor, Ops.apiKeyRevoked, { key_id: revoked.id, name: revoked.name });
  return revoked;
}
