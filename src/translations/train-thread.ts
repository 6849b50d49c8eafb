import { startTsWorker } from '../platform/worker-thread.ts';
import { decodeMap, type Mat, type PairMetrics, type TrainConfig, type TrainedPair } from '../vec2vec/index.ts';
import type { TrainThreadInput, TrainThreadMessage } from './train-worker.ts';

/**
 * Runs `trainTranslationPair` in a worker thread so a long fit never blocks the event loop (HTTP, lease
 * heartbeats, other jobs). Progress arrives as messages; aborting `signal` terminates the thread at once
 * (the math holds no resources and writes nothing, so there is nothing to clean up).
 */
export function trainInThread(
  texts: readonly string[],
  x: Mat,
  y: Mat,
  config: Partial<TrainConfig>,
  opts: { readonly signal?: AbortSignal; readonly onProgress?: (done: number) => void; readonly onEpoch?: (epoch: number, loss: number) => void } = {},
): Promise<TrainedPair> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new Error('training interrupted'));
      return;
    }
    // Copies, so the caller's matrices stay usable; the copies move to the thread without another copy.
    const xs = Float32Array.from(x.data);
    const ys = Float32Array.from(y.data);
    const input: TrainThreadInput = { texts, rows: x.rows, sourceDim: x.cols, targetDim: y.cols, x: xs, y: ys, config };
    const worker = startTsWorker(new URL('./train-worker.ts', import.meta.url), { ...input }, { transferList: [xs.buffer, ys.buffer] });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      finish(() => reject(new Error('training interrupted')));
      void worker.terminate();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: TrainThreadMessage) => {
      if (m.type === 'progress') {
        if (!settled) opts.onProgress?.(m.done);
      } else if (m.type === 'epoch') {
        if (!settled) opts.onEpoch?.(m.epoch, m.loss);
      } else if (m.type === 'done') {
        finish(() => resolve({ forward: decodeMap(m.forward), backward: decodeMap(m.backward), metrics: m.metrics as PairMetrics }));
        void worker.terminate();
      } else {
        finish(() => reject(new Error(m.message)));
        void worker.terminate();
      }
    });
    worker.once('error', (err) => finish(() => reject(err)));
    worker.once('exit', (code) => finish(() => reject(new Error(`training thread exited with code ${code} before finishing`))));
  });
}
