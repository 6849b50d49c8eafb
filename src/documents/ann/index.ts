/**
 * The embedded mode's vector index (docs/retrieval.md, "The embedded vector index"): per (tenant, model) an HNSW graph
 * in usearch (C++), keyed by chunk `seq`, saved in the data folder. It is derived: PGlite's chunk vectors stay the source
 * of truth, a graph is reconciled with them when a process first uses it, and every key it answers is joined back to
 * its chunk and re-checked (tenant, model, the reader's filters) in SQL.
 */
import type { DatabaseExecutor } from '../../platform/db/index.ts';
import { resolveSettings } from '../settings.ts';
import type { DocumentsDeps } from '../types.ts';
import type { ChunkGraph } from './hnsw.ts';
import { registryOf } from './registry.ts';

export { ANN_EXPANSION_SEARCH, type ChunkGraph } from './hnsw.ts';
export { VECTORS_DIR } from './files.ts';
export { ANN_SAVE_DELAY_MS } from './registry.ts';

type AnnDeps = Pick<DocumentsDeps, 'db' | 'log' | 'documentIndex' | 'config'>;

/** Whether the usearch graph serves the vector list (embedded storage, unless configured back to pgvector). */
export function annServes(deps: AnnDeps): boolean {
  return deps.db.kind === 'pglite' && deps.db.hasVector && resolveSettings(deps).embeddedVectorIndex === 'usearch';
}

/** The graph of (tenant, model), opened on first use (loaded from its file, else built, then reconciled with the database). */
export function annGraph(deps: AnnDeps, tenantId: string, model: string, dimensions: number): Promise<ChunkGraph> {
  return registryOf(deps.db, deps.log).open(tenantId, model, dimensions);
}

/**
 * After the transaction that wrote them committed: adds chunk vectors (chunk ids and their vectors) to the graph. A
 * failure here loses nothing: the database has the vectors, and the graph is reconciled when next opened.
 */
export async function annAddChunks(deps: AnnDeps, tenantId: string, model: string, chunkIds: readonly string[], vectors: readonly Float32Array[]): Promise<void> {
  if (!annServes(deps) || chunkIds.length === 0) return;
  await guarded(deps, tenantId, async () => {
    const r = await deps.db.query<{ id: string; seq: string | number }>(
      'SELECT id, seq FROM chunks WHERE tenant_id = $1 AND id = ANY($2::text[]) AND embedding_model = $3',
      [tenantId, [...chunkIds], model],
    );
    const seqOf = new Map(r.rows.map((x) => [x.id, Number(x.seq)]));
    await addPairs(deps, tenantId, model, chunkIds.map((id) => seqOf.get(id) ?? -1), vectors);
  });
}

/** As annAddChunks, for chunks whose `seq`s the writer already has (the insert returned them); a negative seq is skipped. */
export async function annAddSeqs(deps: AnnDeps, tenantId: string, model: string, seqs: readonly number[], vectors: readonly Float32Array[]): Promise<void> {
  if (!annServes(deps) || seqs.length === 0) return;
  await guarded(deps, tenantId, () => addPairs(deps, tenantId, model, seqs, vectors));
}

/** Adds the (seq, vector) pairs that have both: a negative seq (a chunk not found) or a missing vector is skipped. */
function addPairs(deps: AnnDeps, tenantId: string, model: string, seqs: readonly number[], vectors: readonly (Float32Array | undefined)[]): Promise<void> {
  const keep = seqs.flatMap((s, i) => (s >= 0 && vectors[i] ? [i] : []));
  return registryOf(deps.db, deps.log).add(
    tenantId,
    model,
    keep.map((i) => seqs[i] as number),
    keep.map((i) => vectors[i] as Float32Array),
  );
}

/** After the transaction that deleted them committed: takes chunks (by `seq`) out of the tenant's graphs. */
export async function annRemoveSeqs(deps: AnnDeps, tenantId: string, seqs: readonly (number | string)[]): Promise<void> {
  if (!annServes(deps) || seqs.length === 0) return;
  await guarded(deps, tenantId, () => registryOf(deps.db, deps.log).remove(tenantId, seqs.map(Number)));
}

/** Saves every changed graph of the database now (clean shutdown, tests); a no-op where none is open. */
export async function annFlush(db: DatabaseExecutor): Promise<void> {
  await registryOf(db).flush();
}

async function guarded(deps: AnnDeps, tenantId: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    deps.log?.warn({ err, tenantId }, 'vector index update failed: the database has the change; the index is reconciled when next opened');
    registryOf(deps.db, deps.log).forget(tenantId);
  }
}
