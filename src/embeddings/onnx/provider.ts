import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { EMBEDDING_UNAVAILABLE, type EmbeddingProvider } from '../provider.ts';
import { chunked, l2normalize } from '../vector.ts';

export interface OnnxProviderOptions {
  /** A Hugging Face-style folder: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx. */
  readonly path: string;
  readonly id?: string;
  /** `mean` (MiniLM, E5, GTE) or `cls` (BGE). */
  readonly pooling?: 'mean' | 'cls';
  /** Output size; read from config.json `hidden_size` when not given. */
  readonly dimensions?: number;
  readonly batchSize?: number;
  readonly log?: Logger;
}

const configSchema = z.object({ hidden_size: z.number().int().positive().optional() }).passthrough();

const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', path.join('onnx', 'model.onnx')];

/** The on-demand import: onnxruntime-node is ~288 MB, so `@huggingface/transformers` is optional. */
async function importTransformers(): Promise<typeof import('@huggingface/transformers')> {
  try {
    return await import('@huggingface/transformers');
  } catch (err) {
    // Either package may be the missing one: name the one Node could not find.
    const missing = /onnxruntime/i.test(err instanceof Error ? err.message : String(err)) ? 'onnxruntime-node' : '@huggingface/transformers';
    throw new AppError(
      EMBEDDING_UNAVAILABLE,
      503,
      `the onnx embedding provider needs the optional package '${missing}' (@huggingface/transformers with onnxruntime-node), which is not installed: ` +
        'install it with `ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers` (or do not use --omit=optional)',
      { cause: err },
    );
  }
}

/**
 * Any local transformer encoder exported to ONNX (MiniLM, BGE, E5, ...), run by onnxruntime-node
 * through `@huggingface/transformers` with remote models disabled: nothing is ever downloaded.
 */
export function createOnnxProvider(opts: OnnxProviderOptions): EmbeddingProvider {
  const folder = path.resolve(opts.path);
  const missing = REQUIRED_FILES.filter((f) => !fs.existsSync(path.join(folder, f)));
  if (missing.length > 0) throw new Error(`ONNX model folder ${folder} lacks ${missing.join(', ')}`);
  const config = configSchema.parse(JSON.parse(fs.readFileSync(path.join(folder, 'config.json'), 'utf8')));
  const dimensions = opts.dimensions ?? config.hidden_size;
  if (!dimensions) throw new Error(`cannot tell the output size of ${folder}: set ATRIUM_EMBEDDINGS_ONNX_DIMENSIONS`);
  const id = opts.id ?? `onnx/${path.basename(folder)}`;
  const pooling = opts.pooling ?? 'mean';
  const batchSize = opts.batchSize ?? 16;

  type Extractor = (texts: string[], o: { pooling: 'mean' | 'cls'; normalize: boolean }) => Promise<{ dims: number[]; data: unknown }>;
  let loading: Promise<{ run: Extractor; dispose: () => Promise<void> }> | undefined;
  let loadMs: number | null = null;
  const load = () => {
    loading ??= (async () => {
      const started = performance.now();
      const hf = await importTransformers();
      hf.env.allowRemoteModels = false;
      hf.env.allowLocalModels = true;
      hf.env.localModelPath = `${path.dirname(folder)}${path.sep}`;
      const extractor = await hf.pipeline('feature-extraction', path.basename(folder), { dtype: 'fp32', device: 'cpu' });
      loadMs = performance.now() - started;
      opts.log?.info({ model: id, ms: Math.round(loadMs) }, 'embedding model loaded');
      return {
        run: (texts, o) => extractor(texts, o) as Promise<{ dims: number[]; data: unknown }>,
        dispose: () => extractor.dispose(),
      };
    })();
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  return {
    id,
    dimensions,
    loadedMs: () => loadMs,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const model = await load();
      const out: Float32Array[] = [];
      for (const batch of chunked(texts, batchSize)) {
        signal?.throwIfAborted();
        const tensor = await model.run(batch.map((t) => t || ' '), { pooling, normalize: false });
        const data = tensor.data;
        if (!(data instanceof Float32Array)) throw new Error(`model ${id} did not produce float32 embeddings`);
        const width = tensor.dims.at(-1);
        if (width !== dimensions) throw new Error(`model ${id} produced ${width}-d vectors, expected ${dimensions}`);
        for (let i = 0; i < batch.length; i++) {
          const v = data.slice(i * width, (i + 1) * width);
          // A text with no tokens mean-pools to 0/0: answer the zero vector, like the word-vector models.
          if (v.some(Number.isNaN)) v.fill(0);
          out.push(l2normalize(v));
        }
      }
      return out;
    },
    async close() {
      const m = await loading?.catch(() => undefined);
      loading = undefined;
      await m?.dispose();
    },
  };
}
