import { embedQuery, searchPassages, type Viewer } from '../documents/index.ts';
import type { EmbeddingRegistry } from '../embeddings/provider.ts';
import { hasDirection } from '../embeddings/vector.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import type { Logger } from '../platform/log.ts';
import type { LocalCandidate } from './rank.ts';
import type { QueryFilters } from './request.ts';
import { type Translation, type Translator, translatedSimilarity } from './translate.ts';

export interface LocalRetrievalDeps {
  readonly db: DatabaseExecutor;
  readonly log?: Logger;
  readonly embeddings?: EmbeddingRegistry;
  readonly translator?: Translator;
}

export interface LocalRetrieval {
  readonly candidates: LocalCandidate[];
  /** The model the query was embedded with; null when no embedding model is configured. */
  readonly queryModel: string | null;
}

/**
 * Hybrid retrieval over the tenant's own sources (the documents module), then automatic translation:
 * a passage embedded with another model than the query's is compared in the query's space through the
 * registered translation, and carries its confidence. Without a translation such a passage keeps its
 * lexical score only and `federation_confidence` 0.
 */
export async function retrieveLocal(
  deps: LocalRetrievalDeps,
  req: {
    tenantId: string;
    query: string;
    sources: readonly string[] | null;
    filters: QueryFilters;
    limit: number;
    /** Whose documents: filtered in the retrieval statement (documents/acl.ts). */
    viewer: Viewer;
    signal?: AbortSignal;
    /** How long to wait for the query's vector before answering from BM25 alone (a remote model down or slow). */
    embedTimeoutMs?: number;
  },
): Promise<LocalRetrieval> {
  const registry = deps.embeddings;
  const provider = registry?.get(registry.defaultId);
  const embedded = provider ? await embedQuery(deps, provider, req.query, { signal: req.signal, timeoutMs: req.embedTimeoutMs, fallback: true }) : null;
  // The zero vector (no word the model knows) has no direction: the query is then lexical only.
  const queryVector = embedded && hasDirection(embedded) ? embedded : null;
  const queryModel = provider && queryVector ? provider.id : null;
  const passages = await searchPassages(
    { db: deps.db, log: deps.log, embeddings: registry },
    {
      tenantId: req.tenantId,
      query: req.query,
      ...(queryVector && queryModel ? { queryVector, queryModel } : { mode: 'lexical' as const }),
      ...(req.sources ? { sources: req.sources } : {}),
      filters: req.filters,
      limit: req.limit,
      viewer: req.viewer,
      // Each retrieval path (BM25, k-NN) contributes at most this many candidates before fusion.
      candidates: req.limit,
      signal: req.signal,
    },
  );
  const translations = new Map<string, Promise<Translation | null>>();
  const candidates: LocalCandidate[] = [];
  for (const p of passages) {
    const model = p.embedding_model;
    if (p.semantic_score !== null || model === null || queryVector === null || queryModel === null || model === queryModel || !p.vector) {
      candidates.push({
        passage: p,
        semantic: p.semantic_score,
        federation_confidence: 1,
        translation: { applied: false, from: model, to: queryModel, translation_id: null },
      });
      continue;
    }
    let pending = translations.get(model);
    if (!pending) {
      pending = deps.translator ? deps.translator.find(req.tenantId, model, queryModel) : Promise.resolve(null);
      translations.set(model, pending);
    }
    const t = await pending;
    candidates.push(
      t
        ? {
            passage: p,
            semantic: translatedSimilarity(t, p.vector, queryVector),
            federation_confidence: t.confidence,
            translation: t.side === 'query' ? { applied: true, from: queryModel, to: model, translation_id: t.id } : { applied: true, from: model, to: queryModel, translation_id: t.id },
          }
        : { passage: p, semantic: null, federation_confidence: 0, translation: { applied: false, from: model, to: queryModel, translation_id: null } },
    );
  }
  return { candidates, queryModel };
}
