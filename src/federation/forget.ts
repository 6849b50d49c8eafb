import { type AuditActor, recordAudit } from '../audit/index.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import { findDocuments, insertTombstones, liftTombstone, listLocalSources, type TombstoneRecord } from './store.ts';

/** What to forget, as POST /v1/forget takes it (already parsed): documents by id, or a source (all of it or some external ids). */
export interface ForgetRequest {
  readonly document_ids?: readonly string[];
  readonly connector_id?: string;
  readonly external_ids?: readonly string[];
  readonly reason?: string;
}

/**
 * Records tombstones for a forget request: one rule per named document (404 naming the missing ones), one per
 * external id of the named source, or one for the whole source (404 when the tenant has no such source).
 * Audits `federation.forget` with the tombstone ids.
 */
export async function forget(db: Queryable, actor: AuditActor, b: ForgetRequest, now: Date): Promise<TombstoneRecord[]> {
  const rules: { document_id: string | null; connector_id: string | null; external_id: string | null }[] = [];
  if (b.document_ids) {
    const ids = [...new Set(b.document_ids)];
    const found = await findDocuments(db, actor.tenantId, ids);
    const missing = ids.filter((id) => !found.some((d) => d.id === id));
    if (missing.length) throw Errors.notFound('document', missing.join(', '));
    for (const d of found) rules.push({ document_id: d.id, connector_id: d.source_node, external_id: d.external_id });
  }
  if (b.connector_id) {
    const sources = await listLocalSources(db, actor.tenantId);
    if (!sources.some((s) => s.id === b.connector_id)) throw Errors.notFound('connector', b.connector_id);
    if (b.external_ids) for (const e of new Set(b.external_ids)) rules.push({ document_id: null, connector_id: b.connector_id, external_id: e });
    else rules.push({ document_id: null, connector_id: b.connector_id, external_id: null });
  }
  const tombstones = await insertTombstones(db, actor.tenantId, rules, { reason: b.reason ?? null, createdBy: actor.id, now });
  await recordAudit(db, {
    tenantId: actor.tenantId,
    action: Ops.federationForget,
    actorId: actor.id,
    userId: actor.userId,
    at: now,
    details: { tombstone_ids: tombstones.map((t) => t.id), reason: b.reason ?? null },
  });
  return tombstones;
}

/** Lifts a tombstone (404 when the tenant has no active one by that id) and audits `federation.forget_lifted`. */
export async function liftForget(db: Queryable, actor: AuditActor, id: string, now: Date): Promise<TombstoneRecord> {
  const lifted = await liftTombstone(db, actor.tenantId, id, actor.id, now);
  if (!lifted) throw Errors.notFound('tombstone', id);
  await recordAudit(db, { tenantId: actor.tenantId, action: Ops.federationForgetLifted, actorId: actor.id, userId: actor.userId, at: now, details: { tombstone_id: lifted.id } });
  return lifted;
}
