import type { Queryable } from '../platform/db/executor.ts';

export interface McpSessionRecord {
  readonly id: string;
  readonly tenantId: string;
  /** The credential that opened the session: only it may use it. */
  readonly ownerKey: string;
  readonly protocolVersion?: string;
}

/**
 * Where Streamable HTTP sessions of the 2025 revisions live. The service keeps them in the database, so every API
 * process answers every session; the self-hosted server, one process, keeps them in memory.
 */
export interface McpSessionStore {
  /** Records a new session; the owner's least recently used sessions beyond `maxPerOwner` are ended. */
  create(session: McpSessionRecord, now: number, opts: { idleMs: number; maxPerOwner: number }): Promise<void>;
  /** True when the session exists, belongs to `ownerKey` and was used within `idleMs`; its last use becomes `now`. */
  touch(id: string, ownerKey: string, now: number, idleMs: number): Promise<boolean>;
  /** Ends the session; false when it was not the owner's (or did not exist). */
  delete(id: string, ownerKey: string): Promise<boolean>;
}

export function memorySessionStore(): McpSessionStore & { readonly size: number } {
  const sessions = new Map<string, McpSessionRecord & { lastSeen: number }>();
  return {
    get size() {
      return sessions.size;
    },
    async create(session, now, opts) {
      for (const [id, s] of sessions) if (now - s.lastSeen > opts.idleMs) sessions.delete(id);
      const mine = [...sessions.values()].filter((s) => s.ownerKey === session.ownerKey).sort((a, b) => a.lastSeen - b.lastSeen);
      while (mine.length >= opts.maxPerOwner) sessions.delete(mine.shift()!.id);
      sessions.set(session.id, { ...session, lastSeen: now });
    },
    async touch(id, ownerKey, now, idleMs) {
      const s = sessions.get(id);
      if (!s || s.ownerKey !== ownerKey) return false;
      if (now - s.lastSeen > idleMs) {
        sessions.delete(id);
        return false;
      }
      s.lastSeen = now;
      return true;
    },
    async delete(id, ownerKey) {
      const s = sessions.get(id);
      if (!s || s.ownerKey !== ownerKey) return false;
      return sessions.delete(id);
    },
  };
}

/** How stale a session's last use may get before a request renews it: a minute, less for short idle windows. */
function renewAfterMs(idleMs: number): number {
  return Math.min(60_000, Math.floor(idleMs / 5));
}

/** Sessions in `mcp_sessions` (migration 080): one row per session, read by every request, renewed at most once a minute. */
export function databaseSessionStore(db: Queryable): McpSessionStore {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    async create(session, now, opts) {
      // Expired sessions go when new ones come: the table holds at most the live ones and the recently idle.
      await db.query('DELETE FROM mcp_sessions WHERE last_seen_at < $1', [iso(now - opts.idleMs)]);
      await db.query(
        `DELETE FROM mcp_sessions WHERE id IN (
           SELECT id FROM mcp_sessions WHERE owner_key = $1 ORDER BY last_seen_at DESC, id OFFSET $2)`,
        [session.ownerKey, Math.max(0, opts.maxPerOwner - 1)],
      );
      await db.query(
        `INSERT INTO mcp_sessions (id, tenant_id, owner_key, protocol_version, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $5)`,
        [session.id, session.tenantId, session.ownerKey, session.protocolVersion ?? null, iso(now)],
      );
    },
    async touch(id, ownerKey, now, idleMs) {
      const r = await db.query<{ last_seen_at: Date | string }>('SELECT last_seen_at FROM mcp_sessions WHERE id = $1 AND owner_key = $2 AND last_seen_at >= $3', [
        id,
        ownerKey,
        iso(now - idleMs),
      ]);
      const row = r.rows[0];
      if (!row) return false;
      // A read per request; the write that renews the idle window only when it is worth it (not on every call).
      if (now - new Date(row.last_seen_at).getTime() >= renewAfterMs(idleMs)) {
        await db.query('UPDATE mcp_sessions SET last_seen_at = $3 WHERE id = $1 AND owner_key = $2', [id, ownerKey, iso(now)]);
      }
      return true;
    },
    async delete(id, ownerKey) {
      const r = await db.query('DELETE FROM mcp_sessions WHERE id = $1 AND owner_key = $2', [id, ownerKey]);
      return r.affectedRows > 0;
    },
  };
}
