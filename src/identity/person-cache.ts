import type { Queryable } from '../platform/db/index.ts';
import { normalizeEmail } from '../access/index.ts';
import { lookupPerson, type PersonDirectoryEntry } from './directory.ts';
import { generation } from './generation.ts';

/**
 * A person's directory entry (their view's inputs) kept per process for a moment, so a person's search does not pay
 * a round trip to the identity directory on every request (issue 24, bench/acl.ts). Correctness first:
 * - every write to the directory in this process (vendor accounts and memberships from a sync, an admin's mapping or
 *   manual group, a user's sign-in or disabling) calls `directoryChanged`, which bumps the tenant's generation; an
 *   entry read under an older generation is never served, and one whose lookup overlapped a write is not kept. The
 *   bump happens before the write and again after it returns, so a lookup that read the old rows between the two is
 *   discarded too;
 * - anything else (another process on the same PostgreSQL, a write inside a caller's longer transaction, SQL by hand)
 *   is seen at most `PERSON_CACHE_MS` later.
 * Keyed by database handle (tests run several runtimes in one process), tenant and email.
 */
export const PERSON_CACHE_MS = 2_000;
const MAX_ENTRIES = 10_000;
const byDb = new WeakMap<Queryable, Map<string, { at: number; gen: number; entry: PersonDirectoryEntry }>>();

/** `lookupPerson`, answered from the per-process cache while it is current (see above). */
export async function cachedLookupPerson(db: Queryable, tenantId: string, rawEmail: string): Promise<PersonDirectoryEntry> {
  const key = `${tenantId}\u0001${normalizeEmail(rawEmail)}`;
  const cache = byDb.get(db) ?? new Map();
  byDb.set(db, cache);
  const gen = generation(tenantId);
  const hit = cache.get(key);
  if (hit && hit.gen === gen && Date.now() - hit.at < PERSON_CACHE_MS) return hit.entry;
  const started = Date.now();
  const entry = await lookupPerson(db, tenantId, rawEmail);
  if (generation(tenantId) === gen) {
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(key, { at: started, gen, entry });
  }
  return entry;
}
