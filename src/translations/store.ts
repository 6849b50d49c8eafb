import type { Queryable } from '../platform/db/index.ts';

/** A registry entry as the API shows it (built-in or trained by the tenant). */
export interface TranslationRecord {
  readonly translation_id: string;
  readonly source_model: string;
  readonly target_model: string;
  readonly confidence: number;
  readonly trained_at: string;
  readonly sample_count: number;
  readonly kind: 'linear' | 'neural';
  readonly source_dim: number;
  readonly target_dim: number;
  /** True for translations shipped with Atrium (shared by every tenant, not deletable). */
  readonly builtin: boolean;
  readonly metrics: Record<string, unknown>;
}

export interface NewTranslationRow {
  readonly id: string;
  readonly tenantId: string;
  readonly sourceModel: string;
  readonly targetModel: string;
  readonly kind: 'linear' | 'neural';
  readonly sourceDim: number;
  readonly targetDim: number;
  readonly confidence: number;
  readonly sampleCount: number;
  readonly metrics: Record<string, unknown>;
  readonly params: Uint8Array;
  readonly jobId: string | null;
}

const COLUMNS = 'id, source_model, target_model, kind, source_dim, target_dim, confidence, sample_count, metrics, trained_at';

function toRecord(r: Record<string, unknown>): TranslationRecord {
  return {
    translation_id: String(r.id),
    source_model: String(r.source_model),
    target_model: String(r.target_model),
    confidence: Number(r.confidence),
    trained_at: new Date(r.trained_at as string).toISOString(),
    sample_count: Number(r.sample_count),
    kind: r.kind === 'neural' ? 'neural' : 'linear',
    source_dim: Number(r.source_dim),
    target_dim: Number(r.target_dim),
    builtin: false,
    metrics: (r.metrics ?? {}) as Record<string, unknown>,
  };
}

export async function listTenantTranslations(db: Queryable, tenantId: string): Promise<TranslationRecord[]> {
  const r = await db.query(`SELECT ${COLUMNS} FROM translations WHERE tenant_id = $1 ORDER BY source_model, target_model`, [tenantId]);
  return r.rows.map(toRecord);
}

export async function findTenantTranslation(db: Queryable, tenantId: string, sourceModel: string, targetModel: string): Promise<TranslationRecord | null> {
  const r = await db.query(`SELECT ${COLUMNS} FROM translations WHERE tenant_id = $1 AND source_model = $2 AND target_model = $3`, [
    tenantId,
    sourceModel,
    targetModel,
  ]);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

export async function getTenantTranslation(db: Queryable, tenantId: string, id: string): Promise<TranslationRecord | null> {
  const r = await db.query(`SELECT ${COLUMNS} FROM translations WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

export async function loadParams(db: Queryable, tenantId: string, id: string): Promise<Uint8Array | null> {
  const r = await db.query<{ params: Uint8Array }>('SELECT params FROM translations WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  const p = r.rows[0]?.params;
  return p ? new Uint8Array(p.buffer, p.byteOffset, p.byteLength) : null;
}

export async function deleteTenantTranslation(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM translations WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return r.affectedRows > 0;
}

/** Replaces the tenant's translations for these directions with the new rows (run inside one transaction). */
export async function replaceTranslations(tx: Queryable, rows: readonly NewTranslationRow[]): Promise<void> {
  for (const row of rows) {
    await tx.query('DELETE FROM translations WHERE tenant_id = $1 AND source_model = $2 AND target_model = $3', [
      row.tenantId,
      row.sourceModel,
      row.targetModel,
    ]);
    await tx.query(
      `INSERT INTO translations (id, tenant_id, source_model, target_model, kind, source_dim, target_dim, confidence,
         sample_count, metrics, params, job_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        row.id,
        row.tenantId,
        row.sourceModel,
        row.targetModel,
        row.kind,
        row.sourceDim,
        row.targetDim,
        row.confidence,
        row.sampleCount,
        JSON.stringify(row.metrics),
        row.params,
        row.jobId,
      ],
    );
  }
}
