import { type AuditActor, recordAudit, recordAuditBy } from '../audit/index.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { Errors } from '../platform/errors.ts';
import { SsoAudit } from './audit-actions.ts';
import { revokeSession } from './sessions.ts';
import { setUserDisabled, type UserView } from './users.ts';

/** An admin disables (revoking their sessions) or re-enables a user of their tenant: 404 for an unknown user; audited. */
export async function setUserDisabledAs(db: Queryable, actor: AuditActor, userId: string, disabled: boolean, now: Date): Promise<UserView> {
  const user = await setUserDisabled(db, actor.tenantId, userId, disabled, now);
  if (!user) throw Errors.notFound('user', userId);
  await recordAuditBy(db, actor, disabled ? SsoAudit.userDisabled : SsoAudit.userEnabled, { target_user_id: user.id, email: user.email }, now);
  return user;
}

/** Signs out: revokes the session of a cookie token and audits `auth.sso.logout` (nothing for an unknown or ended session). */
export async function endSession(db: Queryable, token: string, now: Date): Promise<void> {
  const revoked = await revokeSession(db, token, now);
  if (!revoked) return;
  await recordAudit(db, { tenantId: revoked.tenantId, action: SsoAudit.logout, actorId: revoked.userId, userId: revoked.userId, details: { session_id: revoked.id }, at: now });
}
