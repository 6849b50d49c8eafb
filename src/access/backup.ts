import { type AuditActor, recordAuditBy } from '../audit/index.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { AppError, Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';

/** The tenant of the instance's operator: the only one whose admins may take the whole data folder away. */
const OPERATOR_TENANT = 'default';

/**
 * A tar of the whole embedded data folder for an admin of tenant `default` (403 for any other tenant: the folder
 * holds every tenant); 409 with PostgreSQL storage (pg_dump's job). Audits `storage.backup` with its size.
 */
export async function takeBackup(db: DatabaseExecutor, actor: AuditActor): Promise<Buffer> {
  if (actor.tenantId !== OPERATOR_TENANT) {
    throw new AppError('permission_denied', 403, "a backup holds every tenant's data: only an admin credential of tenant 'default' (the instance's operator) may take one", {
      details: { required_permission: 'admin', required_tenant: OPERATOR_TENANT },
    });
  }
  if (!db.dump) throw Errors.conflict('this service stores its data in PostgreSQL: back it up with pg_dump (see docs/deployment.md), not through Atrium', { storage: db.kind });
  const tar = Buffer.from(await (await db.dump()).arrayBuffer());
  await recordAuditBy(db, actor, Ops.storageBackup, { bytes: tar.length });
  return tar;
}
