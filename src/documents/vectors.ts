import { createHash } from 'node:crypto';
import type { DatabaseExecutor, Queryable } from '../platform/db/index.ts';

/**
 * Chunk vector storage. With pgvector: one untyped `vector` column and, per model, a partial HNSW
 * index on the cast to that model's dimensions (models differ: 100-d, 512-d, …). Without pgvector:
 * a portable `real[]` column, scored in the app.
 */
export function vectorLiteral(v: Float32Array | readonly number[], pgvector: boolean): string {
  const parts: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) parts[i] = Number.isFinite(v[i]) ? String(v[i]) : '0';
  return pgvector ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
}

/** Parses a vector as returned by either column (`[1,2]` text, `{1,2}` text, or a number array). */
export function parseVector(raw: unknown): Float32Array | null {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Float32Array) return raw;
  if (Array.isArray(raw)) return Float32Array.from(raw as number[]);
  if (typeof raw === 'string') {
    // pgvector's '[…]' is a JSON number list as it stands, real[]'s '{…}' once its braces are swapped
    // (JSON.parse is ~2× faster than splitting); NaN/Infinity in a real[] are not JSON and take the split path.
    const braces = raw.startsWith('{') && raw.endsWith('}');
    const json = raw.startsWith('[') && raw.endsWith(']') ? raw : `[${braces ? raw.slice(1, -1) : raw}]`;
    try {
      return new Float32Array(JSON.parse(json) as number[]);
    } catch {
      const body = json.slice(1, -1);
      return body ? Float32Array.from(body.split(',').map(Number)) : new Float32Array(0);
    }
  }
  return null;
}

/** The first 16 hex digits of a name's SHA-256: how a model id (or another free-form name) goes into index and file names. */
export const shortHash = (name: string): string => createHash('sha256').update(name).digest('hex').slice(0, 16);

export function indexName(model: string): string {
  return `chunks_hnsw_${shortHash(model)}`;
}

/** Memory for building an HNSW graph in one go (the index is built once per model, then maintained). */
export const HNSW_BUILD_MEMORY = '512MB';

const ensured = new WeakMap<DatabaseExecutor, Set<string>>();

/** Whether this process has already made sure the model's index exists. */
export function hasVectorIndex(db: DatabaseExecutor, model: string, dimensions: number): boolean {
  return ensured.get(db)?.has(`${model}:${dimensions}`) ?? false;
}

/** Creates the model's partial HNSW index once (pgvector only); cheap when it exists. */
export async function ensureVectorIndex(db: DatabaseExecutor, model: string, dimensions: number): Promise<void> {
  if (!db.hasVector) return;
  let set = ensured.get(db);
  if (!set) {
    set = new Set();
    ensured.set(db, set);
  }
  const key = `${model}:${dimensions}`;
  if (set.has(key)) return;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) throw new Error(`unsupported vector dimensions ${dimensions}`);
  const literal = model.replace(/'/g, "''");
  // pgvector builds the graph in maintenance_work_mem; the 64 MB default spills to disk past ~60k
  // 100-d vectors, which is extremely slow in PGlite (measured in scripts/bench-corpus.ts).
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL maintenance_work_mem = '${HNSW_BUILD_MEMORY}'`);
    await tx.query(
      `CREATE INDEX IF NOT EXISTS ${indexName(model)} ON chunks USING hnsw ((embedding_vec::vector(${dimensions})) vector_cosine_ops)
       WHERE embedding_model = '${literal}'`,
    );
  });
  set.add(key);
}

/** Writes vectors for chunks (by id, within the tenant) and records their model. */
export async function writeChunkVectors(
  db: DatabaseExecutor | Queryable,
  pgvector: boolean,
  tenantId: string,
  model: string,
  ids: readonly string[],
  vectors: readonly Float32Array[],
): Promise<number> {
  if (ids.length === 0) return 0;
  const column = pgvector ? 'embedding_vec = x.v::vector' : 'embedding = x.v::real[]';
  const r = await db.query(
    `UPDATE chunks c SET ${column}, embedding_model = $2
     FROM unnest($3::text[], $4::text[]) AS x(id, v)
     WHERE c.tenant_id = $1 AND c.id = x.id`,
    [tenantId, model, ids, vectors.map((v) => vectorLiteral(v, pgvector))],
  );
  return r.affectedRows;
}
