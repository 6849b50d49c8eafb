// The federated-query load both federation benchmarks send (bench/federate.ts embedded,
// bench/federate-production.ts on PostgreSQL), so their rows measure the same requests. Not a benchmark itself.

export const FEDERATE_QUERIES = ['payment outage', 'deploy rollback', 'customer refund', 'server cluster latency', 'security audit policy', 'hiring new staff', 'database migration', 'pricing contract renewal'];

/** 320 request bodies: the 8 queries × 40 users, with `extra` fields. */
export const mixedBodies = (extra: Record<string, unknown> = {}): string[] =>
  Array.from({ length: 320 }, (_, k) => JSON.stringify({ query: FEDERATE_QUERIES[k % FEDERATE_QUERIES.length], user_id: `user-${k % 40}`, ...extra }));

/** [title, path, bodies (none = GET), connections (default: the bench's)] */
export type Scenario = [string, string, string[], number?];

/**
 * The uncached scenarios (10 connections measure saturation, latency = queueing + service; one connection
 * measures the latency of a request that does not wait behind others), over the corpus's source ids.
 */
export function uncachedScenarios(sources: readonly string[]): Scenario[] {
  const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
  return [
    ['uncached (/force), 8 queries × 40 users, all 5 sources', '/v1/federate/force', mixedBodies()],
    ['uncached (/force), the same, 1 connection (no queueing)', '/v1/federate/force', mixedBodies(), 1],
    ['uncached, 2 of 5 sources (node_ids), max_results 5', '/v1/federate/force', mixedBodies({ node_ids: [sources[0], sources[2]], max_results: 5 })],
    ['uncached, filters: updated in the last 30 days, type issue or message', '/v1/federate/force', mixedBodies({ filters: { date_range: { after: monthAgo }, document_type: ['issue', 'message'] } })],
  ];
}
