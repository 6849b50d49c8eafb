import { z } from 'zod';
import type { EmbeddingRegistry } from '../embeddings/provider.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { storableText, unstorableReason, unstorableText } from '../platform/errors.ts';
import type { Logger } from '../platform/log.ts';
import { documentAclSchema, type Viewer } from './acl.ts';

/** At most this many documents in one push request (413 above). */
export const MAX_BATCH_DOCUMENTS = 1000;

const isoDate = z.iso.datetime({ offset: true });

/** Why a string, or any key or string inside an array or object, cannot be stored (NUL, a lone surrogate), or null. */
const unstorable = (v: unknown): string | null => unstorableText(v, '')?.message ?? null;

/**
 * A vendor's text may hold U+0000 (a pasted binary, a PDF title) or a lone UTF-16 surrogate (a `\ud83d` escape cut
 * from its pair), which PostgreSQL text and jsonb cannot store: one such document would fail its whole page, and the
 * sync would retry it forever. Connectors' documents lose NULs and have lone surrogates replaced by U+FFFD (pushed
 * documents are refused instead, with the field named: the push caller can fix them).
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (unstorableReason(value) === null ? value : storableText(value.replaceAll('\u0000', ''))) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
  }
  return value;
}

// PostgreSQL stores no NUL character in text or jsonb, and jsonb no lone surrogate: refused here with the field's
// name and the reason, not a 500 at the insert.
const storable = (v: unknown, ctx: z.RefinementCtx) => {
  const reason = unstorable(v);
  if (reason) ctx.addIssue({ code: 'custom', message: reason });
};
const text = (max: number) => z.string().max(max).superRefine(storable);

/** One document as a source hands it over; `external_id` is the source's own id (upsert key). */
export const documentInputSchema = z.object({
  external_id: text(512).min(1),
  title: text(2000),
  content: text(5_000_000),
  url: text(4000).nullish(),
  author: text(512).nullish(),
  document_type: text(64).min(1).nullish(),
  created_at: isoDate.nullish(),
  updated_at: isoDate.nullish(),
  metadata: z
    .record(z.string(), z.unknown())
    .superRefine(storable)
    .nullish(),
  // Who may read it (documents/acl.ts); absent or null = everyone in the tenant.
  acl: documentAclSchema.superRefine(storable).nullish(),
});
export type DocumentInput = z.infer<typeof documentInputSchema>;

export type { Passage, StoredDocument, UpsertResult } from './schemas.ts';

/** Index settings: full-text language, the chunk sizes (characters), and the vector index of embedded storage. */
export interface IndexSettings {
  readonly ftsLanguage: string;
  readonly chunkMaxChars: number;
  readonly chunkOverlapChars: number;
  /**
   * Embedded (PGlite) storage: the chunk vectors' ANN index is a usearch graph in the data folder (`usearch`, src/documents/ann)
   * or pgvector's HNSW inside PGlite (`pgvector`, the earlier design). PostgreSQL storage ignores it.
   */
  readonly embeddedVectorIndex: 'usearch' | 'pgvector';
}

export const DEFAULT_INDEX_SETTINGS: IndexSettings = { ftsLanguage: 'english', chunkMaxChars: 1000, chunkOverlapChars: 150, embeddedVectorIndex: 'usearch' };

/**
 * What the documents module needs. `AppDeps` satisfies it; the CLI and eval build their own.
 * `embeddings` absent → documents are indexed for full-text only.
 */
export interface DocumentsDeps {
  readonly db: DatabaseExecutor;
  readonly log?: Logger;
  readonly embeddings?: EmbeddingRegistry;
  readonly documentIndex?: Partial<IndexSettings>;
  /** Vectors of one model before its HNSW index is built (default HNSW_MIN_VECTORS); 0 = always. */
  readonly hnswMinVectors?: number;
  /** With filters, score the vector list exactly below this many passing documents (default EXACT_VECTOR_BELOW; 0 = always HNSW). */
  readonly exactVectorBelow?: number;
  /** Hybrid search waits this long for the query's vector before answering from BM25 alone (default QUERY_EMBED_TIMEOUT_MS in search/query-vector.ts). */
  readonly queryEmbedTimeoutMs?: number;
  /** Without pgvector: above this many chunks, hybrid search has no vector list of its own (default NO_PGVECTOR_SCAN_MAX in search/vector.ts). */
  readonly noPgvectorScanMax?: number;
  /** Without pgvector: a vector scan of a tenant above noPgvectorScanMax chunks is cancelled after this long (default NO_PGVECTOR_SCAN_TIMEOUT_MS). */
  readonly noPgvectorScanTimeoutMs?: number;
  /** Postings kept per term in the impact lists (default TOP_LIST_SIZE; tests use small lists). */
  readonly impactListSize?: number;
  /** `AppDeps.config` carries the configured index settings (ATRIUM_FTS_LANGUAGE, ATRIUM_CHUNK_*). */
  readonly config?: { readonly documents?: IndexSettings };
}

export type EmbedMode = 'job' | 'inline' | 'none';

export interface SearchFilters {
  readonly after?: string;
  readonly before?: string;
  readonly authors?: readonly string[];
  readonly types?: readonly string[];
  readonly document_types?: readonly string[];
  readonly connector_types?: readonly string[];
}

export type FusionMethod = 'rrf' | 'convex';
export type SearchMode = 'hybrid' | 'lexical' | 'vector';

export interface SearchRequest {
  readonly tenantId: string;
  /** Whose view: only documents this reader may read are candidates. Absent = EVERYONE (no ACL or public). */
  readonly viewer?: Viewer;
  readonly query: string;
  /** A precomputed query vector (in `queryModel`'s space); else the query is embedded with the default model. */
  readonly queryVector?: Float32Array | readonly number[];
  readonly queryModel?: string;
  /** Connector ids (source_node) to restrict to. */
  readonly sources?: readonly string[];
  readonly filters?: SearchFilters;
  readonly limit: number;
  readonly mode?: SearchMode;
  readonly fusion?: FusionMethod;
  /** Semantic weight of the convex fusion (default DEFAULT_ALPHA). */
  readonly alpha?: number;
  /** Vector pseudo-relevance feedback before fusion (default DEFAULT_FEEDBACK, `false` = off; feedback.ts). */
  readonly feedback?: { readonly docs: number; readonly beta: number } | false;
  /** Candidates taken from each retrieval path before fusion; default `defaultDepths(limit)` in search/retrieve.ts (lexical max(100, 4 × limit), vector in hybrid max(30, 3 × limit)). */
  readonly candidates?: number;
  /** Lexical top-k from the impact lists (default) or by scoring every matching chunk (the reference). */
  readonly lexicalPath?: 'impact' | 'exhaustive';
  readonly signal?: AbortSignal;
}
