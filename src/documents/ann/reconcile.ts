import type { Queryable } from '../../platform/db/index.ts';
import { parseVector } from '../vectors.ts';
import type { ChunkGraph } from './hnsw.ts';

/** Vectors read from the database per statement while (re)building a graph. */
const READ_BATCH = 2000;

/** The `seq` of every chunk of the tenant that carries a vector of `model` with the graph's dimensions. */
export async function vectorSeqs(db: Queryable, tenantId: string, model: string, dimensions: number): Promise<number[]> {
  const r = await db.query<{ seq: string | number }>(
    `SELECT seq FROM chunks WHERE tenant_id = $1 AND embedding_model = $2 AND embedding_vec IS NOT NULL AND vector_dims(embedding_vec) = $3`,
    [tenantId, model, dimensions],
  );
  return r.rows.map((x) => Number(x.seq));
}

/** Reads the vectors of `seqs` (within the tenant and model) and adds them to the graph, in batches. */
export async function addFromDatabase(db: Queryable, graph: ChunkGraph, tenantId: string, model: string, seqs: readonly number[]): Promise<number> {
  let added = 0;
  for (let at = 0; at < seqs.length; at += READ_BATCH) {
    const batch = seqs.slice(at, at + READ_BATCH).map(String);
    const r = await db.query<{ seq: string | number; v: string }>(
      `SELECT seq, embedding_vec::text AS v FROM chunks
       WHERE seq = ANY($1::bigint[]) AND tenant_id = $2 AND embedding_model = $3 AND embedding_vec IS NOT NULL`,
      [batch, tenantId, model],
    );
    const keys: number[] = [];
    const vectors: Float32Array[] = [];
    for (const row of r.rows) {
      const v = parseVector(row.v);
      if (!v || v.length !== graph.dimensions) continue;
      keys.push(Number(row.seq));
      vectors.push(v);
    }
    graph.add(keys, vectors);
    added += keys.length;
  }
  return added;
}

/**
 * Makes the graph hold exactly the tenant's vectors of the model as the database has them now: keys whose chunk is gone
 * (deleted after the file was saved) leave, vectors written after it (a kill before the save) are added.
 */
export async function reconcile(db: Queryable, graph: ChunkGraph, tenantId: string, model: string): Promise<{ added: number; removed: number }> {
  const inDb = await vectorSeqs(db, tenantId, model, graph.dimensions);
  const wanted = new Set(inDb);
  const stale: number[] = [];
  for (const k of graph.keys()) if (!wanted.has(Number(k))) stale.push(Number(k));
  const removed = graph.remove(stale);
  const missing = inDb.filter((s) => !graph.has(s));
  const added = await addFromDatabase(db, graph, tenantId, model, missing);
  return { added, removed };
}
