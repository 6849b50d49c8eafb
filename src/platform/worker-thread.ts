import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Starts a worker thread running the TypeScript module `entry` (a file URL), whatever loader the parent used. */
export function startTsWorker(entry: URL, workerData: Record<string, unknown> = {}, opts: WorkerOptions = {}): Worker {
  return new Worker(new URL('./worker-bootstrap.mjs', import.meta.url), {
    ...opts,
    workerData: { ...workerData, entry: entry.href },
  });
}
