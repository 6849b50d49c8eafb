import type { EmbeddingProvider } from '../../embeddings/provider.ts';
import { hasDirection } from '../../embeddings/vector.ts';
import { timeoutSignal } from '../../platform/abort.ts';
import { resolveProvider } from '../embed.ts';
import type { DocumentsDeps, SearchRequest } from '../types.ts';

/** How long hybrid search waits for the query's vector (a remote model) before answering from BM25 alone. */
export const QUERY_EMBED_TIMEOUT_MS = 3000;

/**
 * The query's vector. With `fallback` (hybrid search, the federated query) a model that fails or is slow
 * (a remote API down, a missing optional package) costs only the vector list: null after at most
 * `timeoutMs`, and a warning is logged. Without it (vector mode, which has nothing else to offer) the
 * error is passed on, as is the caller's own abort.
 */
export async function embedQuery(
  deps: Pick<DocumentsDeps, 'log'>,
  provider: EmbeddingProvider,
  query: string,
  opts: { signal?: AbortSignal; timeoutMs?: number; fallback: boolean },
): Promise<Float32Array | null> {
  const { signal } = opts;
  if (!opts.fallback) return (await provider.embed([query], signal))[0] ?? null;
  const timeout = timeoutSignal(opts.timeoutMs ?? QUERY_EMBED_TIMEOUT_MS);
  try {
    return (await provider.embed([query], signal ? AbortSignal.any([signal, timeout]) : timeout))[0] ?? null;
  } catch (err) {
    if (signal?.aborted) throw err;
    deps.log?.warn({ err, model: provider.id }, 'the query could not be embedded: answering from full-text search only');
    return null;
  }
}

/**
 * The request's query vector and its model: the precomputed one, else the query embedded (not in lexical mode).
 * A query with no word the model knows embeds to the zero vector: no direction, so no vector list (its cosine is
 * undefined; pgvector would answer NaN). Hybrid is then lexical; vector mode finds nothing.
 */
export async function queryVector(deps: DocumentsDeps, req: SearchRequest, query: string): Promise<{ vector: Float32Array; model: string } | null> {
  const mode = req.mode ?? 'hybrid';
  if (mode === 'lexical') return null;
  let vector: Float32Array | null = null;
  let model: string | null = null;
  if (req.queryVector) {
    vector = Float32Array.from(req.queryVector);
    model = req.queryModel ?? deps.embeddings?.defaultId ?? null;
  } else if (deps.embeddings && query) {
    const provider = resolveProvider(deps, req.queryModel);
    vector = await embedQuery(deps, provider, query, { signal: req.signal, timeoutMs: deps.queryEmbedTimeoutMs, fallback: mode !== 'vector' });
    model = provider.id;
  }
  if (!vector || !hasDirection(vector) || model === null || vector.length === 0) return null;
  return { vector, model };
}
