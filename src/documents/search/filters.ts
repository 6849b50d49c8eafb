import { aclCondition, type Viewer } from '../acl.ts';
import type { SearchRequest } from '../types.ts';
import type { Params } from './sql.ts';

/** The request's filters as SQL on documents `d` (and connectors `k`), with the joins they need. */
export interface FilterPlan {
  /** The conditions on chunks `c` (the ACL, on the chunk's copy) and documents `d` (`docJoin`), each as ` AND …`. */
  readonly sql: string;
  /** Whether anything is filtered (the reader's view or a request filter). */
  readonly needsDoc: boolean;
  /** Joins documents `d` to chunks `c` when a condition of `sql` reads the document (empty when only the ACL filters). */
  readonly docJoin: string;
  readonly conJoin: string;
  /** The reader's ACL condition alone, on documents `d` (` AND …`, or empty when the view is not filtered). */
  readonly acl: string;
  /** The other conditions (sources, dates, authors, types, connector types), ` AND …` each. */
  readonly rest: string;
  /** The ids of the documents that pass the filters (only `rest` with `withAcl` false); `gate` is a one-time condition put in front. */
  passingDocs(gate?: string, withAcl?: boolean): string;
  /**
   * Whether chunk `c` passes, per chunk: the ACL on the chunk's own copy (migration 094, no document lookup), the
   * other filters as one scalar subquery on its document. A plan that walks chunks in an index's order (HNSW, impact
   * lists) keeps that order and tests each chunk, whatever the planner guesses about how many pass (a prepared
   * statement's generic plan guesses 1 % for `acl_principals && $n`; chunks have no index on the copy on purpose).
   */
  readonly chunkPasses: string;
}

/**
 * The reader's ACL view is one more filter on the candidate set: every path (lexical, vector, fallbacks) applies
 * it before its LIMIT, so top-k is the reader's top-k and nothing they may not read is scored or counted.
 */
export function planFilters(req: SearchRequest, viewer: Viewer, tenant: string, p: Params): FilterPlan {
  const parts: string[] = [];
  let needsConnector = false;
  const f = req.filters ?? {};
  // One parameter for the view, used on documents `d` and on the chunk's copy `c` alike.
  let param = '';
  const aclSql = aclCondition(viewer, (v) => {
    param = p.add(v);
    return param;
  });
  const chunkAclSql = aclCondition(viewer, () => param, 'c');
  if (req.sources?.length) parts.push(`d.source_node = ANY(${p.add([...req.sources])}::text[])`);
  if (f.after) parts.push(`coalesce(d.updated_at, d.created_at, d.ingested_at) >= ${p.add(f.after)}::timestamptz`);
  if (f.before) parts.push(`coalesce(d.updated_at, d.created_at, d.ingested_at) < ${p.add(f.before)}::timestamptz`);
  if (f.authors?.length) parts.push(`d.author = ANY(${p.add([...f.authors])}::text[])`);
  const types = [...(f.types ?? []), ...(f.document_types ?? [])];
  if (types.length) parts.push(`d.document_type = ANY(${p.add(types)}::text[])`);
  if (f.connector_types?.length) {
    needsConnector = true;
    parts.push(`k.connector_type = ANY(${p.add([...f.connector_types])}::text[])`);
  }
  const acl = aclSql ? ` AND ${aclSql}` : '';
  const rest = parts.map((x) => ` AND ${x}`).join('');
  const docSql = `${acl}${rest}`;
  const needsDoc = docSql.length > 0;
  const conJoin = needsConnector ? ' LEFT JOIN connectors k ON k.id = d.source_node AND k.tenant_id = d.tenant_id' : '';
  const chunkAcl = chunkAclSql ? ` AND ${chunkAclSql}` : '';
  const restPasses = `coalesce((SELECT true FROM documents d${conJoin} WHERE d.id = c.document_id AND d.tenant_id = c.tenant_id${rest}), false)`;
  return {
    sql: `${chunkAcl}${rest}`,
    needsDoc,
    docJoin: rest ? ' JOIN documents d ON d.id = c.document_id AND d.tenant_id = c.tenant_id' : '',
    conJoin,
    acl,
    rest,
    passingDocs: (gate = '', withAcl = true) => `SELECT d.id FROM documents d${conJoin} WHERE ${gate}d.tenant_id = ${tenant}${withAcl ? docSql : rest}`,
    chunkPasses: [chunkAclSql, rest ? restPasses : null].filter((x) => x !== null).join(' AND ') || 'true',
  };
}

/**
 * The `vec` CTE over an approximate filtered list (`list`, the name of a CTE of chunk ids): that list while it holds
 * `depth` chunks, else the passing documents' chunks scored exactly (`+ 0` keeps the planner off the HNSW ordering),
 * so a reader or filter that passes a small share still gets its true top `depth`. Used by the pgvector walk and the
 * embedded ANN list alike.
 */
export function vecOrExact(list: string, o: { filters: FilterPlan; tenant: string; model: string; depth: number; dist: (alias: string) => string }): string {
  const short = `(SELECT count(*) FROM ${list}) < ${o.depth}`;
  return `vec AS (
            SELECT id FROM ${list} WHERE NOT ${short}
            UNION ALL
            (SELECT c.id FROM (${o.filters.passingDocs(`${short} AND `)} OFFSET 0) fd
             JOIN chunks c ON c.tenant_id = ${o.tenant} AND c.document_id = fd.id
             WHERE c.embedding_model = ${o.model}
             ORDER BY ${o.dist('c')} + 0 LIMIT ${o.depth})
          )`;
}
