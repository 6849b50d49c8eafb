import type { Queryable } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import type { Chunk } from './chunker.ts';
import type { Prepared } from './store.ts';
import { vectorLiteral } from './vectors.ts';

/** The chunk rows of one batch, as columns for one `unnest` insert (store.ts `storeOnce`). */
export interface ChunkRows {
  id: string[];
  doc: string[];
  ord: number[];
  content: (string | null)[];
  heading: (string | null)[];
  text: string[];
  vec: (string | null)[];
  vectors: Float32Array[];
}

/** The chunk rows of the documents whose chunks are replaced, and those documents' ids (`reindexed`). */
export function buildChunkRows(
  needsChunks: readonly Prepared[],
  idByExt: ReadonlyMap<string, string>,
  chunked: ReadonlyMap<string, Chunk[]>,
  vectorsOf: ReadonlyMap<string, Float32Array[]>,
  pgvector: boolean,
): { chunkRows: ChunkRows; reindexed: string[] } {
  const chunkRows = {
    id: [] as string[],
    doc: [] as string[],
    ord: [] as number[],
    content: [] as (string | null)[],
    heading: [] as (string | null)[],
    text: [] as string[],
    vec: [] as (string | null)[],
    vectors: [] as Float32Array[],
  };
  const reindexed: string[] = [];
  for (const p of needsChunks) {
    const docId = idByExt.get(p.input.external_id);
    if (!docId) continue;
    reindexed.push(docId);
    const vectors = vectorsOf.get(p.input.external_id);
    const chunks = chunked.get(p.input.external_id) ?? [];
    for (const [i, c] of chunks.entries()) {
      chunkRows.id.push(newId('chk'));
      chunkRows.doc.push(docId);
      chunkRows.ord.push(c.ordinal);
      // A document that is one chunk of its whole text keeps the text once: NULL reads as documents.content.
      chunkRows.content.push(chunks.length === 1 && c.content === p.input.content ? null : c.content);
      chunkRows.heading.push(c.heading);
      chunkRows.text.push(lexicalText(p.input.title, c.content));
      const v = vectors?.[i];
      chunkRows.vec.push(v ? vectorLiteral(v, pgvector) : null);
      if (v) chunkRows.vectors.push(v);
    }
  }
  return { chunkRows, reindexed };
}

/**
 * Inserts the chunk rows with their lexemes, term frequencies and lengths (BM25) and their vectors; answers each new
 * chunk's `seq` by id (the embedded vector graph's key, src/documents/ann).
 */
export async function insertChunkRows(
  tx: Queryable,
  tenantId: string,
  chunkRows: ChunkRows,
  { ftsLanguage, embedderId, pgvector }: { ftsLanguage: string; embedderId: string | null; pgvector: boolean },
): Promise<Map<string, number>> {
  // One tokenisation per chunk (title and text together, so the title's words count as the chunk's), read in one
  // pass: its lexemes (sorted, as the tsvector holds them) and their frequencies, aligned, and their sum (the BM25
  // length; an empty chunk gets empty arrays and 0). No tsvector is stored (migration 105): the
  // arrays serve BM25 and the GIN index. OFFSET 0 keeps the LATERAL subquery from being flattened into the select
  // list, where the planner would evaluate to_tsvector once per reference. Each chunk copies its document's
  // acl_principals (migration 094; a trigger keeps the copy in step when the ACL changes later).
  const vecColumn = pgvector ? 'embedding_vec' : 'embedding';
  const r = await tx.query<{ id: string; seq: string | number }>(
    `INSERT INTO chunks (id, tenant_id, document_id, ordinal, content, heading, terms, tfs, length, ${vecColumn}, embedding_model, acl_principals)
     SELECT x.id, $1, x.doc, x.ord, x.content, x.heading, coalesce(t.terms, '{}'), coalesce(t.tfs, '{}'), coalesce(t.len, 0),
            x.vec::${pgvector ? 'vector' : 'real[]'}, CASE WHEN x.vec IS NOT NULL THEN $9::text END,
            (SELECT d.acl_principals FROM documents d WHERE d.id = x.doc AND d.tenant_id = $1)
     FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $10::text[]) AS x(id, doc, ord, content, heading, text, vec)
     CROSS JOIN LATERAL (SELECT to_tsvector($8::regconfig, x.text) AS fts OFFSET 0) v
     CROSS JOIN LATERAL (
       SELECT array_agg(u.lexeme) AS terms, array_agg(u.tf) AS tfs, sum(u.tf) AS len
       FROM (SELECT lexeme, least(coalesce(array_length(positions, 1), 1), 32767)::smallint AS tf FROM unnest(v.fts)) u
     ) t
     RETURNING id, seq`,
    [tenantId, chunkRows.id, chunkRows.doc, chunkRows.ord, chunkRows.content, chunkRows.heading, chunkRows.text, ftsLanguage,
      embedderId, chunkRows.vec],
  );
  return new Map(r.rows.map((x) => [x.id, Number(x.seq)]));
}

/** The text a chunk's lexemes come from: its document's title, then the chunk (a line break keeps their words apart). */
function lexicalText(title: string, content: string): string {
  return title ? `${title}\n${content}` : content;
}
