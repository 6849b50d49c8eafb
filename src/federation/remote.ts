import type { IntentSignal } from './intent.ts';
import type { FederatedItem } from './item.ts';
import type { RemoteNodeWithKey } from './nodes.ts';
import type { FederatedQuery } from './request.ts';
import { federatedResponseSchema } from './schema.ts';

/** Sent on fan-out requests: the receiving node answers from its own sources only (no further fan-out). */
export const HOP_HEADER = 'x-atrium-federation-hop';
/** Sent with HOP_HEADER while the originating node is damping: the receiving node puts critical items first within its budget. */
export const CRITICAL_FIRST_HEADER = 'x-atrium-critical-first';

export type NodeOutcome =
  | { readonly ok: true; readonly items: FederatedItem[]; readonly consulted: string[] }
  | { readonly ok: false; readonly reason: 'timeout' | 'error' | 'rejected'; readonly message: string };

/**
 * Queries one remote Atrium node over its `/v1/federate` within `deadlineMs`. Its items come back with
 * `source_node` prefixed by the node's name; so do the sources it consulted. Never throws: a 400 from the
 * node (the request names a source it does not have) is `rejected`, any other failure `error` or `timeout`.
 */
export async function queryRemoteNode(
  node: RemoteNodeWithKey,
  q: FederatedQuery,
  opts: { intent: IntentSignal; budget: number; criticalFirst?: boolean; subNodes: readonly string[] | null; deadlineMs: number; signal?: AbortSignal; fetch?: typeof fetch },
): Promise<NodeOutcome> {
  const body = {
    query: q.query,
    user_id: q.user_id,
    max_results: Math.max(1, Math.min(100, opts.budget)),
    intent_signal: opts.intent,
    include_reasoning: q.include_reasoning,
    ...(opts.subNodes ? { node_ids: opts.subNodes } : {}),
    filters: {
      ...(q.filters.after || q.filters.before ? { date_range: { after: q.filters.after, before: q.filters.before } } : {}),
      ...(q.filters.authors ? { authors: q.filters.authors } : {}),
      ...(q.filters.document_types ? { document_type: q.filters.document_types } : {}),
      ...(q.filters.connector_types ? { connector_type: q.filters.connector_types } : {}),
    },
  };
  const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.deadlineMs)]) : AbortSignal.timeout(opts.deadlineMs);
  try {
    const res = await (opts.fetch ?? fetch)(`${node.url}/v1/federate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${node.apiKey}`,
        [HOP_HEADER]: '1',
        ...(opts.criticalFirst ? { [CRITICAL_FIRST_HEADER]: '1' } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
    const text = await res.text();
    if (res.status === 400) return { ok: false, reason: 'rejected', message: remoteErrorMessage(text) };
    if (!res.ok) return { ok: false, reason: 'error', message: `HTTP ${res.status}: ${text.slice(0, 200)}` };
    const parsed = federatedResponseSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return { ok: false, reason: 'error', message: `unexpected response: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    const prefix = `${node.name}/`;
    return {
      ok: true,
      items: parsed.data.items.map((i) => ({ ...i, source_node: prefix + i.source_node, metadata: { ...i.metadata, remote_node: node.name } })),
      consulted: parsed.data.nodes_consulted.map((n) => prefix + n),
    };
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, reason: 'timeout', message: `no answer within ${opts.deadlineMs} ms` };
    return { ok: false, reason: 'error', message: (err as Error).message };
  }
}

/** The `error.message` of an Atrium error body, else the body's start. */
function remoteErrorMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return `HTTP 400: ${text.slice(0, 200)}`;
}
