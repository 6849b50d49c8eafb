import { z } from 'zod';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * A date-range bound as a client writes it: an ISO 8601 timestamp with offset, or a calendar date
 * (`2026-11-17`), read in UTC. Normalized to an ISO timestamp. Both bounds cover whole days: a date as
 * `after` starts at its midnight, a date as `before` ends at the next midnight, so
 * `{after: "2026-11-01", before: "2026-11-17"}` holds the 1st through the 17th.
 */
export function rangeBound(kind: 'after' | 'before') {
  return z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((s) => {
    if (!DATE_ONLY.test(s)) return new Date(s).toISOString();
    const start = Date.parse(`${s}T00:00:00Z`);
    return new Date(kind === 'before' ? start + DAY_MS : start).toISOString();
  });
}
