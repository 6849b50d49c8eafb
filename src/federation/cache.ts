/** A small TTL cache with LRU eviction, in-process (each API process has its own). */
export interface TtlCache<V> {
  get(key: string, nowMs: number): V | undefined;
  set(key: string, value: V, nowMs: number): void;
  readonly size: number;
}

export function createTtlCache<V>(ttlMs: number, maxEntries = 1000): TtlCache<V> {
  const entries = new Map<string, { value: V; expires: number }>();
  return {
    get(key, nowMs) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expires <= nowMs) {
        entries.delete(key);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value, nowMs) {
      if (ttlMs <= 0) return;
      entries.delete(key);
      entries.set(key, { value, expires: nowMs + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
