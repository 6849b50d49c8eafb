import { annGraph } from '../ann/index.ts';
import type { DocumentsDeps } from '../types.ts';
import { vectorLiteral } from '../vectors.ts';
import type { VectorInput, VectorPlan } from './vector.ts';
import { vecOrExact } from './filters.ts';
import { sqlString } from './sql.ts';

/**
 * With the reader's ACL or a filter, the graph is asked for this many times the depth (at least ANN_FILTERED_MIN_K):
 * the keys are resolved in ANN order and the first `depth` that pass are the list, so a reader who may see a share
 * s ≥ depth / k of the tenant gets their top k from the graph. One wide usearch search (~1 ms at k = 1000 over 100k
 * vectors) is cheaper than a probe statement per escalation step in PGlite; a reader who sees less gets the exact
 * branch, whose cost is the (small) number of chunks they may see.
 */
export const ANN_FILTERED_OVERSAMPLE = 16;
export const ANN_FILTERED_MIN_K = 1000;

/**
 * The vector list from the embedded usearch graph (src/documents/ann): its nearest keys (chunk `seq`s) become the list
 * in SQL, in ANN order, each joined back to its chunk with the tenant, model and the reader's filters checked again, so
 * a key whose chunk is gone, changed model or is hidden from the reader never surfaces. Filtered, a list that comes back
 * short although the graph had more keys falls back to the exact branch: the passing documents' chunks scored with
 * pgvector's distance (no index), as pgvectorPlan does for a small filtered set.
 */
export async function annPlan(deps: DocumentsDeps, o: VectorInput): Promise<VectorPlan> {
  const { filters, tenant, depth, p } = o;
  const dims = o.vector.length;
  const model = sqlString(o.model);
  const graph = await annGraph(deps, o.tenantId, o.model, dims);
  const filtered = filters.needsDoc;
  const want = filtered ? Math.max(ANN_FILTERED_MIN_K, depth * ANN_FILTERED_OVERSAMPLE) : depth;
  const k = Math.min(graph.size, want);
  const keys = graph.search(o.vector, k);
  // Every key of the graph was considered: the list is complete, no exact fallback needed.
  const exhausted = keys.length >= graph.size;
  const v = `${p.add(vectorLiteral(o.vector, true))}::vector(${dims})`;
  const dist = (alias: string) => `(${alias}.embedding_vec::vector(${dims}) <=> ${v})`;
  const semanticSql = `CASE WHEN c.embedding_model = ${model} AND vector_dims(c.embedding_vec) = ${dims} THEN 1 - ${dist('c')} END`;
  const base = { list: true, semanticSql, appCosine: null, boundedScan: null, efSearch: null };
  // LATERAL keeps a nested loop over the keys in their order (sorted by ordinality first), so LIMIT stops at the
  // depth-th passing chunk instead of resolving every key.
  const annList = `SELECT x.id FROM unnest(${p.add(keys.map(String))}::bigint[]) WITH ORDINALITY u(seq, ord)
          CROSS JOIN LATERAL (
            SELECT c.id FROM chunks c
            WHERE c.seq = u.seq AND c.tenant_id = ${tenant} AND c.embedding_model = ${model}${filtered ? ` AND ${filters.chunkPasses}` : ''}
          ) x
          ORDER BY u.ord LIMIT ${depth}`;
  if (!filtered || exhausted) return { ...base, ctes: [`vec AS (${annList})`] };
  return { ...base, ctes: [`vec_ann AS (${annList})`, vecOrExact('vec_ann', { filters, tenant, model, depth, dist })] };
}
