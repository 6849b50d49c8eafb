import type { Worker } from 'node:worker_threads';

export interface PoolOptions {
  /** Number of worker threads (started lazily, on the first task). */
  readonly size: number;
  /** Tasks waiting beyond this make `run` wait for room (back-pressure on bulk callers). */
  readonly maxQueue: number;
  /** Starts one worker; it must post `{type:'ready'}` once usable, or `{type:'failed', message}`. */
  readonly start: () => Worker;
}

interface Task<Res> {
  readonly payload: unknown;
  readonly resolve: (r: Res) => void;
  readonly reject: (e: unknown) => void;
  readonly signal: AbortSignal | undefined;
  settled: boolean;
  /** Removed when the task settles: one long-lived signal (a job's) serves many tasks. */
  onAbort?: () => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  busy: number | undefined;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'result'; id: number; [k: string]: unknown }
  | { type: 'error'; id: number; message: string };

/**
 * A fixed set of worker threads each running one task at a time, fed from two FIFO lanes: `urgent`
 * (interactive queries) is served before `bulk` (ingestion), so a long ingestion never starves a
 * search. Aborted tasks leave the queue at once; a worker that dies fails its task and is replaced.
 */
export class WorkerPool<Res> {
  private readonly slots: Slot[] = [];
  private readonly urgent: Task<Res>[] = [];
  private readonly bulk: Task<Res>[] = [];
  private readonly running = new Map<number, Task<Res>>();
  private readonly roomWaiters: (() => void)[] = [];
  private nextId = 1;
  private closed = false;
  private startError: Error | undefined;

  constructor(private readonly opts: PoolOptions) {}

  get queued(): number {
    return this.urgent.length + this.bulk.length;
  }

  get workers(): number {
    return this.slots.length;
  }

  async run(payload: unknown, opts: { signal?: AbortSignal; urgent?: boolean } = {}): Promise<Res> {
    if (this.closed) throw new Error('worker pool is closed');
    if (this.startError) throw this.startError;
    opts.signal?.throwIfAborted();
    while (!opts.urgent && this.bulk.length >= this.opts.maxQueue) {
      await new Promise<void>((r) => this.roomWaiters.push(r));
      opts.signal?.throwIfAborted();
      if (this.closed) throw new Error('worker pool is closed');
    }
    this.ensureWorkers();
    return new Promise<Res>((resolve, reject) => {
      const task: Task<Res> = { payload, resolve, reject, signal: opts.signal, settled: false };
      const lane = opts.urgent ? this.urgent : this.bulk;
      lane.push(task);
      if (opts.signal) {
        task.onAbort = () => {
          const i = lane.indexOf(task);
          if (i >= 0) lane.splice(i, 1);
          this.settle(task, undefined, opts.signal?.reason ?? new Error('aborted'));
          this.wakeRoom();
        };
        opts.signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new Error('worker pool is closed');
    for (const t of [...this.urgent.splice(0), ...this.bulk.splice(0), ...this.running.values()]) this.settle(t, undefined, err);
    this.running.clear();
    for (const w of this.roomWaiters.splice(0)) w();
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private ensureWorkers(): void {
    while (this.slots.length < this.opts.size) this.spawn();
  }

  private spawn(): void {
    const worker = this.opts.start();
    const slot: Slot = { worker, ready: false, busy: undefined };
    this.slots.push(slot);
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'ready') {
        slot.ready = true;
        this.dispatch();
      } else if (m.type === 'failed') {
        // A model that cannot load will not load on retry: fail everything waiting, refuse new work.
        this.startError = new Error(`embedding worker failed to start: ${m.message}`);
        for (const t of [...this.urgent.splice(0), ...this.bulk.splice(0)]) this.settle(t, undefined, this.startError);
      } else {
        const task = this.running.get(m.id);
        this.running.delete(m.id);
        slot.busy = undefined;
        if (task) {
          if (m.type === 'result') this.settle(task, m as unknown as Res, undefined);
          else this.settle(task, undefined, new Error(m.message));
        }
        this.dispatch();
      }
    });
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      if (slot.busy !== undefined) {
        const task = this.running.get(slot.busy);
        this.running.delete(slot.busy);
        if (task) this.settle(task, undefined, new Error('embedding worker exited while running a task'));
      }
      if (!this.closed && !this.startError && this.queued > 0) {
        this.ensureWorkers();
      }
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.busy !== undefined) continue;
      const task = this.urgent.shift() ?? this.bulk.shift();
      if (!task) return;
      this.wakeRoom();
      if (task.settled) continue;
      const id = this.nextId++;
      slot.busy = id;
      this.running.set(id, task);
      slot.worker.postMessage({ id, ...(task.payload as object) });
    }
  }

  private wakeRoom(): void {
    while (this.roomWaiters.length > 0 && this.bulk.length < this.opts.maxQueue) this.roomWaiters.shift()!();
  }

  private settle(task: Task<Res>, value: Res | undefined, err: unknown): void {
    if (task.settled) return;
    task.settled = true;
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    if (err !== undefined) task.reject(err);
    else task.resolve(value as Res);
  }
}
