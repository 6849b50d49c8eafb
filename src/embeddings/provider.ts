/**
 * An embedding model. Every stored vector records the `id` of the provider that made it, so the
 * federated query can detect a model mismatch and translate (vec2vec).
 */
export interface EmbeddingProvider {
  /** Stable model id, e.g. `builtin/glove-100d`, `builtin/use-lite-512d`, `openai/text-embedding-3-small`. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * Cheap enough to run on the ingest request path (GloVe: ~0.13 ms CPU per chunk on the main thread).
   * Ingestion then writes vectors with the chunks in one transaction instead of enqueueing a
   * `documents.embed` job (docs/retrieval.md, "Embedding at ingestion").
   */
  readonly inline?: boolean;
  /** One L2-normalized vector per text, in order. Honours `signal` between batches. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Releases worker threads or native sessions. */
  close?(): Promise<void>;
  /** How long loading the model took (ms), once it is loaded; null before. */
  loadedMs?(): number | null;
}

/** The models this instance can use; one of them is the default for new documents and queries. */
export interface EmbeddingRegistry {
  readonly defaultId: string;
  get(id: string): EmbeddingProvider | undefined;
  list(): readonly EmbeddingProvider[];
  /** Load time (ms) per model id that has loaded; models not loaded yet are absent (GET /v1/status). */
  loadTimes?(): ReadonlyMap<string, number>;
}

/**
 * The model id `name` refers to among `ids`: the id itself, else the one id equal to it or whose short name
 * (after the last `/`, e.g. `glove-100d`) is, in any case; null when none or several match. Model names
 * anywhere in the API go through here.
 */
export function resolveModelName(name: string, ids: Iterable<string>): string | null {
  const all = [...ids];
  if (all.includes(name)) return name;
  const lower = name.toLowerCase();
  const matches = all.filter((id) => id.toLowerCase() === lower || id.slice(id.lastIndexOf('/') + 1).toLowerCase() === lower);
  return matches.length === 1 ? (matches[0] ?? null) : null;
}

/** AppError code of a provider error that retrying cannot fix (wrong key, wrong dimensions, a body that is not embeddings). */
export const EMBEDDING_REJECTED = 'embedding_provider_rejected' as const;
/** AppError code of a model that cannot run until the installation changes (a missing optional package). */
export const EMBEDDING_UNAVAILABLE = 'embedding_model_unavailable' as const;
