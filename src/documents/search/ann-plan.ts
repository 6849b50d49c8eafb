import { viewerKey } from '../acl.ts';
import { annGraph } from '../ann/index.ts';
import type { DocumentsDeps, SearchRequest } from '../types.ts';
import { vectorLiteral } from '../vectors.ts';
import { vecOrExact } from './filters.ts';
import { sqlString } from './sql.ts';
import type { VectorInput, VectorPlan } from './vector.ts';

/**
 * A filtered list (the reader's ACL or a request filter) is looked for in two stages. First the graph is asked for
 * ANN_FILTERED_FIRST × depth keys (at least ANN_FILTERED_FIRST_MIN): a usearch search costs ~0.4-0.7 ms up to 400 keys
 * over 100k vectors, but 2-5 ms at 1,000-1,600, and a reader who sees a quarter of the tenant or more finds `depth`
 * passing chunks among them. When fewer pass, the statement is planned again (`wide`) with max(ANN_FILTERED_MIN_K,
 * ANN_FILTERED_OVERSAMPLE × depth) keys and the exact fallback, so a reader who sees little still gets the true top k.
 * docs/retrieval.md, "Filters and the vector list".
 */
export const ANN_FILTERED_FIRST = 4;
export const ANN_FILTERED_FIRST_MIN = 256;
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
  const wide = filtered && o.annWide === true;
  const want = !filtered ? depth : wide ? Math.max(ANN_FILTERED_MIN_K, depth * ANN_FILTERED_OVERSAMPLE) : Math.max(ANN_FILTERED_FIRST_MIN, depth * ANN_FILTERED_FIRST);
  const k = Math.min(graph.size, want);
  const keys = graph.search(o.vector, k);
  // Every key of the graph was considered: the list is complete, no exact fallback needed.
  const exhausted = keys.length >= graph.size;
  const v = `${p.add(vectorLiteral(o.vector, true))}::vector(${dims})`;
  const dist = (alias: string) => `(${alias}.embedding_vec::vector(${dims}) <=> ${v})`;
  const semanticSql = `CASE WHEN c.embedding_model = ${model} AND vector_dims(c.embedding_vec) = ${dims} THEN 1 - ${dist('c')} END`;
  const base = { list: true, semanticSql, appCosine: null, boundedScan: null, efSearch: null, widenBelow: null };
  // LATERAL keeps a nested loop over the keys in their order (sorted by ordinality first), so LIMIT stops at the
  // depth-th passing chunk instead of resolving every key.
  const annList = `SELECT x.id FROM unnest(${p.add(keys.map(String))}::bigint[]) WITH ORDINALITY u(seq, ord)
          CROSS JOIN LATERAL (
            SELECT c.id FROM chunks c
            WHERE c.seq = u.seq AND c.tenant_id = ${tenant} AND c.embedding_model = ${model}${filtered ? ` AND ${filters.chunkPasses}` : ''}
          ) x
          ORDER BY u.ord LIMIT ${depth}`;
  if (!filtered || exhausted) return { ...base, ctes: [`vec AS (${annList})`] };
  // First stage: fewer than `depth` passing chunks here means "ask again, wider" (retrieve.ts), not "exact scan".
  if (!wide) return { ...base, ctes: [`vec AS (${annList})`], widenBelow: depth };
  return { ...base, ctes: [`vec_ann AS (${annList})`, vecOrExact('vec_ann', { filters, tenant, model, depth, dist })] };
}

/**
 * Per reader shape (tenant, view, filters, model), how often the first stage came back short lately: a reader whose
 * first stage is short more often than not starts with the wide stage (one statement instead of two), and tries the
 * first stage again every ANN_STAGE_RETRY-th query, so a view that widened since is noticed. Per database, bounded.
 */
const ANN_STAGE_MEMO_MAX = 1024;
const ANN_STAGE_RETRY = 16;
const stageMemo = new WeakMap<object, Map<string, { runs: number; short: number; wideRuns: number }>>();

function stageEntry(db: object, key: string) {
  const memo = stageMemo.get(db) ?? new Map<string, { runs: number; short: number; wideRuns: number }>();
  stageMemo.set(db, memo);
  const found = memo.get(key);
  if (found) return found;
  if (memo.size >= ANN_STAGE_MEMO_MAX) memo.delete(memo.keys().next().value as string);
  const e = { runs: 0, short: 0, wideRuns: 0 };
  memo.set(key, e);
  return e;
}

/** The reader shape of a request, as the stage memo keys it. */
export function annStageKey(req: SearchRequest): string {
  return `${req.tenantId}|${req.queryModel ?? ''}|${req.viewer ? viewerKey(req.viewer) : ''}|${JSON.stringify([req.filters ?? null, req.sources ?? null])}`;
}

/** Whether this reader shape's filtered vector list should skip the shallow first stage. */
export function annStartsWide(db: object, key: string): boolean {
  const e = stageMemo.get(db)?.get(key);
  if (!e || e.runs < 4 || e.short * 2 <= e.runs) return false;
  e.wideRuns++;
  return e.wideRuns % ANN_STAGE_RETRY !== 0;
}

/** Notes the outcome of a first stage (short: fewer than `depth` chunks passed); the last ~32 count. */
export function annNoteStage(db: object, key: string, short: boolean): void {
  const e = stageEntry(db, key);
  if (e.runs >= 32) {
    e.runs /= 2;
    e.short /= 2;
  }
  e.runs++;
  if (short) e.short++;
}
