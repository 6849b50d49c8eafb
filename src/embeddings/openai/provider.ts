import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError, fetchFailure, openAiErrorMessage } from '../../platform/errors.ts';
import { maskSecrets } from '../../platform/secrets.ts';
import { EMBEDDING_REJECTED, type EmbeddingProvider } from '../provider.ts';
import { chunked, toUnitVector } from '../vector.ts';
import { parseRetryAfter } from '../../platform/retry.ts';
import { type BackoffPolicy, isRetryableStatus, retryDelayMs } from './backoff.ts';
import { timeoutSignal } from '../../platform/abort.ts';

export interface OpenAiProviderOptions {
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), a vLLM or TEI server. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  /** `bearer` (OpenAI, Ollama, vLLM, TEI) or `api-key` (Azure OpenAI keys). */
  readonly authHeader?: 'bearer' | 'api-key';
  readonly dimensions: number;
  /** Send `dimensions` in the request (models that can shorten their output, e.g. text-embedding-3-*). */
  readonly requestDimensions?: boolean;
  readonly batchSize?: number;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  readonly backoff?: BackoffPolicy;
  readonly id?: string;
  readonly log?: Logger;
  /** Injected in tests to observe delays instead of waiting them out. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => Date;
}

/** Known output sizes, so the common OpenAI models need no dimensions setting. */
export const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

/** A body that is not JSON: told apart from a read that timed out. */
const NOT_JSON = Symbol('not json');

/** An embedding model behind the OpenAI `/embeddings` wire format. */
export function createOpenAiProvider(opts: OpenAiProviderOptions): EmbeddingProvider {
  const id = opts.id ?? `openai/${opts.model}`;
  const url = embeddingsUrl(opts.baseUrl);
  const batchSize = opts.batchSize ?? 64;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxRetries = opts.maxRetries ?? 5;
  const backoff = opts.backoff ?? { baseMs: 500, maxMs: 30_000 };
  const sleep = opts.sleep ?? ((ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, { signal }));
  const now = opts.now ?? (() => new Date());
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (opts.apiKey) {
    if (opts.authHeader === 'api-key') headers['api-key'] = opts.apiKey;
    else headers.authorization = `Bearer ${opts.apiKey}`;
  }
  // The key never leaves in a message, even when the upstream echoes it back in its error text.
  const redact = (text: string) => (opts.apiKey ? maskSecrets(text, [opts.apiKey]) : text);
  /** `permanent`: retrying cannot help (wrong key, wrong dimensions, a body that is not embeddings). */
  const fail = (message: string, cause?: unknown, permanent = false) =>
    new AppError(permanent ? EMBEDDING_REJECTED : 'embedding_provider_error', 502, `embedding model '${id}': ${redact(message)}`, { cause });

  async function embedBatch(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const body = JSON.stringify({
      model: opts.model,
      input,
      encoding_format: 'float',
      ...(opts.requestDimensions ? { dimensions: opts.dimensions } : {}),
    });
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let res: Response;
      let json: unknown;
      try {
        // The timeout covers the whole exchange: a server that sends headers and then stalls is a timeout too.
        const attemptSignal = signal ? AbortSignal.any([signal, timeoutSignal(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
        res = await fetch(url, { method: 'POST', headers, body, signal: attemptSignal });
        json = res.ok ? await res.json().catch((err: unknown) => (attemptSignal.aborted ? Promise.reject(err) : NOT_JSON)) : undefined;
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (attempt >= maxRetries) throw fail(`request failed after ${attempt + 1} attempts: ${describe(err)}`, err);
        const delay = retryDelayMs(attempt, undefined, backoff);
        opts.log?.warn({ model: id, attempt, delay, err: describe(err) }, 'embedding request failed; retrying');
        await sleep(delay, signal);
        continue;
      }
      if (res.ok) {
        const parsed = responseSchema.safeParse(json);
        if (!parsed.success) throw fail('the server answered with an unexpected body (not the OpenAI embeddings format)', undefined, true);
        const rows = [...parsed.data.data].sort((a, b) => a.index - b.index);
        if (rows.length !== input.length) throw fail(`asked for ${input.length} embeddings, got ${rows.length}`, undefined, true);
        if (rows.some((r, i) => r.index !== i)) throw fail(`the answer's indexes are not 0..${input.length - 1}, each once`, undefined, true);
        return rows.map((r) => {
          if (r.embedding.length !== opts.dimensions)
            throw fail(`expected ${opts.dimensions} dimensions, got ${r.embedding.length}: fix ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS`, undefined, true);
          return toUnitVector(r.embedding);
        });
      }
      const text = await res.text().catch(() => '');
      const retryable = isRetryableStatus(res.status);
      if (!retryable || attempt >= maxRetries) {
        throw fail(`HTTP ${res.status}${attempt > 0 ? ` after ${attempt + 1} attempts` : ''}: ${openAiErrorMessage(text)}`, undefined, !retryable);
      }
      const delay = retryDelayMs(attempt, parseRetryAfter(res.headers.get('retry-after'), now().getTime()) ?? undefined, backoff);
      opts.log?.warn({ model: id, status: res.status, attempt, delay }, 'embedding request rejected; retrying');
      await sleep(delay, signal);
    }
  }

  return {
    id,
    dimensions: opts.dimensions,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      // Sequential batches: a remote API's rate limit is the bottleneck, not our concurrency.
      for (const batch of chunked(texts, batchSize)) out.push(...(await embedBatch(batch.map((t) => t || ' '), signal)));
      return out;
    },
  };
}

/** `<base>/embeddings`, keeping a query string (Azure's `?api-version=`). */
export function embeddingsUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/embeddings`;
  return u.toString();
}

/** A failed exchange in words (network cause included). */
const describe = (err: unknown): string => (err instanceof Error && err.name === 'TimeoutError' ? 'timed out' : fetchFailure(err));

