import { z } from 'zod';

/**
 * The documents module's wire shapes: one zod schema each, with its type inferred from it. The HTTP routes use them
 * as response schemas (so the OpenAPI document and packages/client follow); MCP and federation import the types.
 */

/** The document fields a stored document and a search passage share. */
const documentFields = z.object({
  source_node: z.string().describe('the connector the document came from'),
  connector_type: z.string().nullable(),
  external_id: z.string(),
  title: z.string(),
  url: z.string().nullable(),
  author: z.string().nullable(),
  document_type: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

/** A stored document, as `GET /v1/documents/{id}` returns it (`acl` to admins only). */
export const storedDocumentSchema = documentFields.extend({
  id: z.string(),
  tenant_id: z.string(),
  content: z.string(),
  acl: z.unknown().optional().describe('who may read it (shared ACL shape; absent = everyone in the tenant); shown to admins only'),
  content_hash: z.string(),
  embedding_model: z.string().nullable().describe('model of its vectors; null until embedded'),
  ingested_at: z.string(),
  chunk_count: z.number().int(),
});
export type StoredDocument = z.infer<typeof storedDocumentSchema>;

/** One passage of `POST /v1/search`. */
export const passageSchema = documentFields.extend({
  chunk_id: z.string(),
  document_id: z.string(),
  heading: z.string().nullable(),
  content: z.string(),
  /** BM25 score (unbounded, ≥ 0); 0 when the passage matched only by vector. */
  lexical_score: z.number(),
  /** Cosine similarity to the query vector; null when the chunk has no vector in a comparable space. */
  semantic_score: z.number().nullable(),
  /** The fused score used for ordering, 0..1. */
  fused_score: z.number(),
  /** The model the chunk vector came from (null when not embedded yet). */
  embedding_model: z.string().nullable(),
});
export type PassageRecord = z.infer<typeof passageSchema>;

/** A search passage as the module hands it to its callers: the wire passage and what stays server-side. */
export type Passage = PassageRecord & {
  readonly ordinal: number;
  /** When Atrium last stored this document; the age of a document whose source gives no timestamp. */
  readonly ingested_at: string | null;
  readonly acl: unknown;
  /** The chunk vector (for translation by the federated query); null when not embedded. */
  readonly vector: Float32Array | null;
};

/** The answer to a push (`POST /v1/connectors/{id}/documents`) and what `upsertDocuments` reports to a sync. */
export const upsertResultSchema = z.object({
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  documents: z.array(z.object({ id: z.string(), external_id: z.string() })),
  embed_job_id: z
    .string()
    .nullable()
    .optional()
    .describe('the job making vectors for the changed documents; null when none is needed (a request-path model such as GloVe wrote them with the chunks)'),
});
export type UpsertResult = z.infer<typeof upsertResultSchema>;
