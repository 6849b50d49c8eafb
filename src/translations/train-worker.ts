// Worker-thread body: fits a translation pair off the main event loop. Imports only the pure math module.
// In: texts and both embedding matrices (transferred, not copied). Out: progress messages, then the two
// encoded maps and the metrics, or an error message.
import { parentPort, workerData } from 'node:worker_threads';
import { encodeMap, mat, type TrainConfig, trainTranslationPair } from '../vec2vec/index.ts';

export interface TrainThreadInput {
  readonly texts: readonly string[];
  readonly rows: number;
  readonly sourceDim: number;
  readonly targetDim: number;
  readonly x: Float32Array;
  readonly y: Float32Array;
  readonly config: Partial<TrainConfig>;
}

export type TrainThreadMessage =
  | { readonly type: 'progress'; readonly done: number }
  | { readonly type: 'epoch'; readonly epoch: number; readonly loss: number }
  | { readonly type: 'done'; readonly forward: Uint8Array; readonly backward: Uint8Array; readonly metrics: unknown }
  | { readonly type: 'error'; readonly message: string };

const input = workerData as TrainThreadInput;
const post = (m: TrainThreadMessage, transfer: ArrayBuffer[] = []) => parentPort?.postMessage(m, transfer);
try {
  const trained = await trainTranslationPair(input.texts, mat(input.rows, input.sourceDim, input.x), mat(input.rows, input.targetDim, input.y), input.config, {
    onProgress: (done) => post({ type: 'progress', done }),
    onEpoch: (epoch, loss) => post({ type: 'epoch', epoch, loss }),
  });
  const forward = encodeMap(trained.forward);
  const backward = encodeMap(trained.backward);
  post({ type: 'done', forward, backward, metrics: trained.metrics }, [forward.buffer as ArrayBuffer, backward.buffer as ArrayBuffer]);
} catch (err) {
  post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
}
