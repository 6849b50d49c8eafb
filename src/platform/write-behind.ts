import type { Queryable } from './db/executor.ts';

/**
 * A write-behind queue with group commit. Items are written `delayMs` after the first one of a batch arrives
 * (or as soon as `maxBatch` are queued), all in one `write`; items pushed while a write is in flight go in the
 * next one. `drain()` writes what is queued at once and resolves when everything pushed so far is written:
 * readers that must see the items call it first. With `delayMs` 0 the write starts in the next microtask.
 */
export interface WriteBehind<T> {
  push(item: T): void;
  /** Writes the queue now and resolves when every item pushed so far has been written (or its failure reported). */
  drain(): Promise<void>;
  readonly pending: number;
}

export function createWriteBehind<T>(
  write: (batch: T[]) => Promise<void>,
  opts: { maxBatch?: number; delayMs?: number; onError?: (err: unknown, lost: number) => void } = {},
): WriteBehind<T> {
  const maxBatch = opts.maxBatch ?? 500;
  const delayMs = opts.delayMs ?? 0;
  let queue: T[] = [];
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let inFlight = 0;

  async function loop(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      inFlight = batch.length;
      try {
        await write(batch);
      } catch (err) {
        opts.onError?.(err, batch.length);
      }
      inFlight = 0;
    }
    running = null;
  }

  function start(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    running ??= loop();
    return running;
  }

  return {
    push(item) {
      queue.push(item);
      if (running || timer) {
        if (timer && queue.length >= maxBatch) start();
        return;
      }
      if (delayMs > 0) {
        timer = setTimeout(start, delayMs);
        // The owner drains on shutdown; a pending batch must not keep the process alive by itself.
        timer.unref();
      } else {
        // A microtask: items pushed in the same synchronous step share the first write.
        running = Promise.resolve().then(loop);
      }
    },
    drain() {
      if (timer) return start();
      return running ?? Promise.resolve();
    },
    get pending() {
      return queue.length + inFlight;
    },
  };
}

/** One row to insert later: its table, columns, values and optional per-column casts (`::text[]`). */
export interface DeferredRow {
  readonly table: string;
  readonly columns: readonly string[];
  readonly values: readonly unknown[];
  readonly casts?: readonly string[];
}

const deferred = new WeakMap<Queryable, WriteBehind<DeferredRow>>();
/**
 * How long a deferred row may wait for others to share its commit. On PGlite every commit writes the WAL
 * through the file system (milliseconds of CPU on the only thread), more than the rest of a cached federated
 * query; at 30 requests/s this makes ~3 rows a commit, at 200/s ~20. It is also the window of rows a crash can lose.
 */
export const DEFERRED_DELAY_MS = 100;

/**
 * Queues a row for a batched INSERT behind the caller (audit events, query activity: append-only rows on hot
 * paths). Rows queued for a database within `DEFERRED_DELAY_MS` (or while a write is in flight) go out in one
 * statement (one INSERT per table inside one `WITH`), so one commit per batch. Readers that must see them call
 * `drainDeferred(db)` first. Failures go to the `onError` of the call that created the database's queue.
 */
export function deferInsert(db: Queryable, row: DeferredRow, onError?: (err: unknown, lost: number) => void): void {
  let queue = deferred.get(db);
  if (!queue) {
    queue = createWriteBehind<DeferredRow>((batch) => writeRows(db, batch), { maxBatch: 500, delayMs: DEFERRED_DELAY_MS, onError });
    deferred.set(db, queue);
  }
  queue.push(row);
}

export async function drainDeferred(db: Queryable): Promise<void> {
  await deferred.get(db)?.drain();
}

async function writeRows(db: Queryable, rows: readonly DeferredRow[]): Promise<void> {
  const groups = new Map<string, DeferredRow[]>();
  for (const r of rows) {
    const key = `${r.table}(${r.columns.join(',')})`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const params: unknown[] = [];
  const inserts: string[] = [];
  for (const g of groups.values()) {
    const first = g[0]!;
    const cols = first.columns.length;
    const tuples = g.map((r) => {
      const ph = r.values.map((v, c) => {
        params.push(v);
        return `$${params.length}${first.casts?.[c] ?? ''}`;
      });
      if (ph.length !== cols) throw new Error(`deferred row for ${first.table} has ${ph.length} values for ${cols} columns`);
      return `(${ph.join(', ')})`;
    });
    inserts.push(`INSERT INTO ${first.table} (${first.columns.join(', ')}) VALUES ${tuples.join(', ')}`);
  }
  const sql = inserts.length === 1 ? inserts[0]! : `WITH ${inserts.map((s, i) => `w${i} AS (${s})`).join(', ')} SELECT 1`;
  await db.query(sql, params);
}
