import type { Queryable } from '../platform/db/executor.ts';
import { deferInsert, drainDeferred } from '../platform/write-behind.ts';
import type { ActivityEvent } from './entropy.ts';
import { loadActivity } from './store.ts';

/**
 * On PostgreSQL a user's history is re-read after this long (other API processes may have added to it).
 * An embedded PGlite store belongs to one process, so there it is never re-read once in memory.
 */
export const ACTIVITY_REFRESH_MS = 5_000;
/** Users whose history is held in memory, least recently used evicted first. */
const MAX_USERS = 10_000;
/** Rows older than this are deleted (entropy looks back minutes; a day is kept for inspection). */
const RETENTION_MS = 86_400_000;
const PRUNE_EVERY_MS = 60_000;
const ACTIVITY_COLUMNS = ['tenant_id', 'user_id', 'occurred_at', 'query_hash', 'terms'];
const ACTIVITY_CASTS = ['', '', '', '', '::text[]'];

interface Entry {
  /** Newest first, as the database query returns them. */
  events: ActivityEvent[];
  /** The `since` the entry was loaded with: it holds every event at or after it (within `limit`). */
  since: number;
  limit: number;
  loadedAt: number;
  /** Requests between `history` and their `done`: a refresh waits until none is in flight. */
  inFlight: number;
  loading: Promise<void> | null;
}

interface Row {
  readonly tenantId: string;
  readonly userId: string;
  readonly at: Date;
  readonly queryHash: string;
  readonly terms: readonly string[];
}

export interface ActivityHandle {
  /** The user's events at or after `since`, newest first, at most `limit` (what `loadActivity` returns). */
  readonly events: ActivityEvent[];
  /** Records the current query (or nothing, on failure); call exactly once. */
  done(event: Omit<Row, 'tenantId' | 'userId'> | null): void;
}

/**
 * The activity behind user entropy, kept in memory per user and written to `federation_activity` behind
 * the response in batches. Within one process the history a query sees is exactly what the table would
 * return; on PostgreSQL another API process's queries for the same user are picked up at the next refresh (≤ 5 s).
 */
export interface ActivityLog {
  history(db: Queryable, tenantId: string, userId: string, since: Date, limit: number): Promise<ActivityHandle>;
  /** Waits until every event recorded against this database is in it. */
  flush(db: Queryable): Promise<void>;
}

export function createActivityLog(
  opts: { onError?: (err: unknown, lost: number) => void; monotonicMs?: () => number; refreshMs?: (db: Queryable) => number } = {},
): ActivityLog {
  const mono = opts.monotonicMs ?? (() => performance.now());
  const refreshMs = opts.refreshMs ?? ((db: Queryable) => ((db as { kind?: string }).kind === 'pglite' ? Number.POSITIVE_INFINITY : ACTIVITY_REFRESH_MS));
  const users = new Map<string, Entry>();
  let lastPrune = Number.NEGATIVE_INFINITY;

  function record(db: Queryable, r: Row): void {
    deferInsert(
      db,
      { table: 'federation_activity', columns: ACTIVITY_COLUMNS, values: [r.tenantId, r.userId, r.at.toISOString(), r.queryHash, [...r.terms]], casts: ACTIVITY_CASTS },
      opts.onError,
    );
    if (mono() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = mono();
      void db
        .query('DELETE FROM federation_activity WHERE occurred_at < $1', [new Date(r.at.getTime() - RETENTION_MS).toISOString()])
        .catch((err: unknown) => opts.onError?.(err, 0));
    }
  }

  return {
    async history(db, tenantId, userId, since, limit) {
      const key = `${tenantId}\u0000${userId}`;
      let entry = users.get(key);
      while (entry?.loading) {
        await entry.loading;
        entry = users.get(key);
      }
      const stale = !entry || entry.since > since.getTime() || entry.limit < limit || (mono() - entry.loadedAt >= refreshMs(db) && entry.inFlight === 0);
      if (stale) {
        const fresh: Entry = entry ?? { events: [], since: since.getTime(), limit, loadedAt: 0, inFlight: 0, loading: null };
        fresh.loading = (async () => {
          // Our own earlier writes first, so the table holds everything this process recorded.
          await drainDeferred(db);
          fresh.events = await loadActivity(db, tenantId, userId, since, limit);
          fresh.since = since.getTime();
          fresh.limit = limit;
          fresh.loadedAt = mono();
        })();
        users.set(key, fresh);
        try {
          await fresh.loading;
        } catch (err) {
          users.delete(key);
          throw err;
        } finally {
          fresh.loading = null;
        }
        entry = fresh;
      }
      const e = entry as Entry;
      // LRU order: most recently used last.
      users.delete(key);
      users.set(key, e);
      while (users.size > MAX_USERS) {
        const oldest = users.keys().next().value;
        if (oldest === undefined) break;
        users.delete(oldest);
      }
      e.inFlight++;
      const sinceMs = since.getTime();
      const events = [];
      for (const ev of e.events) {
        if (events.length >= limit) break;
        if (ev.at.getTime() >= sinceMs) events.push(ev);
      }
      let finished = false;
      return {
        events,
        done(event) {
          if (finished) return;
          finished = true;
          e.inFlight--;
          if (!event) return;
          record(db, { tenantId, userId, ...event });
          insertNewestFirst(e.events, { at: event.at, terms: event.terms });
          // Keep what a later query's window could still need; the rest stays in the table only.
          if (e.events.length > e.limit * 2) e.events.length = e.limit * 2;
        },
      };
    },
    async flush(db) {
      await drainDeferred(db);
    },
  };
}

function insertNewestFirst(events: ActivityEvent[], e: ActivityEvent): void {
  const t = e.at.getTime();
  let i = 0;
  while (i < events.length && events[i]!.at.getTime() > t) i++;
  events.splice(i, 0, e);
}
