import { type AuditActor, recordAuditBy } from '../audit/index.ts';
import type { DatabaseExecutor, Queryable } from '../platform/db/index.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import { type AccountRecord, mapAccount, replaceGroupMembers } from './directory.ts';
import { looksLikeEmail } from './view.ts';

/** An admin maps a vendor account to a person by hand (null removes it): 404 for an unknown account; audits `identity.mapped`. */
export async function mapAccountAs(db: Queryable, actor: AuditActor, accountId: string, email: string | null): Promise<AccountRecord> {
  const mapped = await mapAccount(db, actor.tenantId, accountId, email);
  if (!mapped) throw Errors.notFound('identity account', accountId);
  await recordAuditBy(db, actor, Ops.identityMapped, { account_id: mapped.account_id, email: mapped.mapped_email });
  return mapped;
}

/**
 * An admin sets a group's hand-set members (emails lower-cased, duplicates dropped, sorted); members a connector
 * syncs are kept. Audits `identity.mapped` with the member count. Returns the stored member list.
 */
export async function setManualGroupMembers(db: DatabaseExecutor, actor: AuditActor, groupId: string, given: readonly string[]): Promise<string[]> {
  const members = [...new Set(given.map((m) => (looksLikeEmail(m) ? m.toLowerCase() : m)))].sort();
  await replaceGroupMembers(db, actor.tenantId, 'manual', [{ group_id: groupId, members }]);
  await recordAuditBy(db, actor, Ops.identityMapped, { group_id: groupId, members: members.length });
  return members;
}
