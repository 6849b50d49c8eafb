import { fetchFailure } from '../platform/errors.ts';
import { maskSecrets } from '../platform/secrets.ts';
import type { IntentSignal } from './intent.ts';
import type { FederatedItem } from './item.ts';
import type { RemoteNodeWithKey } from './nodes.ts';
import type { FederatedQuery } from './request.ts';
import { federatedResponseSchema } from './schema.ts';
import { timeoutSignal } from '../platform/abort.ts';

/** Sent on fan-out requests: the receiving node answers from its own sources only (no further fan-out). */
export const HOP_HEADER = 'x-atrium-federation-hop';
/** Sent with HOP_HEADER while the originating node is damping: the receiving node puts critical items first within its budget. */
export const CRITICAL_FIRST_HEADER = 'x-atrium-critical-first';
/**
 * Sent with HOP_HEADER: the terms of the user's recent queries at the originating node (comma-separated, each
 * URI-encoded, at most CONTEXT_TERMS_MAX), so the receiving node scores context sensitivity as the origin would.
 */
export const CONTEXT_TERMS_HEADER = 'x-atrium-context-terms';
export const CONTEXT_TERMS_MAX = 64;
/**
 * Sent with HOP_HEADER: the originating tenant's federation origin id (migration 054). A node that receives
 * its own tenant's id answers 409 (`details.reason: federation_loop`): it was registered as a remote of itself
 * under a name or proxy that leads back to it, and would answer every query twice.
 */
export const ORIGIN_HEADER = 'x-atrium-origin';
export const FEDERATION_LOOP = 'federation_loop';
/**
 * Sent with HOP_HEADER when the originating node answers a person: that person's email (URI-encoded). The receiving
 * node answers for them only when the node credential it was sent with holds `act_as`; otherwise it answers with the
 * credential's own view (a service key: documents everyone may read). See docs/permissions.md.
 */
export const FORWARDED_FOR_HEADER = 'x-atrium-federated-for';

/** The header value for some context terms (the most recent first are kept). */
export function encodeContextTerms(terms: readonly string[]): string {
  return terms
    .slice(0, CONTEXT_TERMS_MAX)
    .map((t) => encodeURIComponent(t.slice(0, 64)))
    .join(',');
}

/** The context terms of a hop request's header; anything malformed is dropped. */
export function decodeContextTerms(header: string | string[] | undefined): string[] {
  if (typeof header !== 'string' || header === '') return [];
  const out: string[] = [];
  for (const part of header.split(',').slice(0, CONTEXT_TERMS_MAX)) {
    try {
      const term = decodeURIComponent(part).slice(0, 64);
      if (term) out.push(term);
    } catch {
      // not URI-encoded: skip it
    }
  }
  return out;
}

/** The largest answer read from a remote node: 100 items of passages (≤ 1,000 characters) with reasoning fit in ~0.5 MB. */
export const REMOTE_MAX_BYTES = 4 * 1024 * 1024;
/** A remote item's content is cut to this many characters (local items are single passages). */
export const REMOTE_MAX_CONTENT_CHARS = 10_000;

/** The body as text, refused once it passes `maxBytes` (a misbehaving node cannot exhaust memory within the deadline). */
export async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? 'NaN');
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`answer larger than ${maxBytes} bytes (${declared})`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}


export type NodeOutcome =
  | { readonly ok: true; readonly items: FederatedItem[]; readonly consulted: string[] }
  | {
      readonly ok: false;
      readonly reason: 'timeout' | 'error' | 'rejected';
      /** What went wrong, from the node's answer where it gave one; the node's API key masked. For admins and logs. */
      readonly message: string;
      /** The status alone (`HTTP 502`, `timeout`, `unreachable`, `invalid answer`), no text from the node: for everyone else. */
      readonly status: string;
    };

/**
 * Queries one remote Atrium node over its `/v1/federate` within `deadlineMs`. Its items come back with
 * `source_node` prefixed by the node's name; so do the sources it consulted. Never throws: a 400 from the
 * node (the request names a source it does not have) is `rejected`, any other failure `error` or `timeout`.
 */
export async function queryRemoteNode(
  node: RemoteNodeWithKey,
  q: FederatedQuery,
  opts: {
    intent: IntentSignal;
    budget: number;
    criticalFirst?: boolean;
    contextTerms?: readonly string[];
    subNodes: readonly string[] | null;
    deadlineMs: number;
    signal?: AbortSignal;
    fetch?: typeof fetch;
    /** This tenant's federation origin id (ORIGIN_HEADER). */
    origin?: string;
    /** The person the answer is for (FORWARDED_FOR_HEADER); absent for a service view or an admin's bypass. */
    forwardedFor?: string;
  },
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
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeoutSignal(opts.deadlineMs)]) : AbortSignal.timeout(opts.deadlineMs);
  // A node may echo the credential it was sent (in an error body, or a network error naming the URL): every
  // message built from its answer is masked before it reaches a caller, a log line or an audit row.
  const fail = (reason: 'timeout' | 'error' | 'rejected', status: string, message: string): NodeOutcome => ({
    ok: false,
    reason,
    status,
    message: maskSecrets(message, [node.apiKey]),
  });
  try {
    const res = await (opts.fetch ?? fetch)(`${node.url}/v1/federate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${node.apiKey}`,
        [HOP_HEADER]: '1',
        ...(opts.criticalFirst ? { [CRITICAL_FIRST_HEADER]: '1' } : {}),
        ...(opts.contextTerms?.length ? { [CONTEXT_TERMS_HEADER]: encodeContextTerms(opts.contextTerms) } : {}),
        ...(opts.origin ? { [ORIGIN_HEADER]: opts.origin } : {}),
        ...(opts.forwardedFor ? { [FORWARDED_FOR_HEADER]: encodeURIComponent(opts.forwardedFor) } : {}),
      },
      body: JSON.stringify(body),
      signal,
      // The key goes to this node only: a redirect is its failure, not followed.
      redirect: 'manual',
    });
    const text = await readCapped(res, REMOTE_MAX_BYTES);
    if (res.status === 400) return fail('rejected', 'HTTP 400', remoteErrorMessage(text) ?? `HTTP 400: ${text.slice(0, 200)}`);
    if (!res.ok) return fail('error', `HTTP ${res.status}`, `HTTP ${res.status}: ${remoteErrorMessage(text) ?? text.slice(0, 200)}`);
    const parsed = federatedResponseSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return fail('error', 'invalid answer', `unexpected response: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const prefix = `${node.name}/`;
    return {
      ok: true,
      // No more than was asked for, and passages of a sane size, whatever the node sends.
      items: parsed.data.items.slice(0, body.max_results).map((i) => ({
        ...i,
        content: i.content.length > REMOTE_MAX_CONTENT_CHARS ? i.content.slice(0, REMOTE_MAX_CONTENT_CHARS) : i.content,
        source_node: prefix + i.source_node,
        metadata: { ...i.metadata, remote_node: node.name },
      })),
      consulted: parsed.data.nodes_consulted.map((n) => prefix + n),
    };
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return fail('timeout', 'timeout', `no answer within ${opts.deadlineMs} ms`);
    const status = name === 'EgressDeniedError' ? 'egress denied' : err instanceof TypeError ? 'unreachable' : 'invalid answer';
    return fail('error', status, fetchFailure(err));
  }
}

/** The `error.message` of an Atrium error body, or null when the body is not one. */
function remoteErrorMessage(text: string): string | null {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return null;
}

/**
 * Whether `url` (with `apiKey`) leads back to the tenant whose origin id is `origin`: asks its GET /v1/nodes
 * as a hop with ORIGIN_HEADER. True only on that node's own loop answer; any failure (down, slow, an older
 * Atrium) is false: registration does not wait for a node to be reachable.
 */
export async function leadsBackHere(url: string, apiKey: string, origin: string, opts: { deadlineMs: number; fetch?: typeof fetch }): Promise<boolean> {
  try {
    const res = await (opts.fetch ?? fetch)(`${url}/v1/nodes`, {
      headers: { authorization: `Bearer ${apiKey}`, [HOP_HEADER]: '1', [ORIGIN_HEADER]: origin },
      signal: AbortSignal.timeout(opts.deadlineMs),
      redirect: 'manual',
    });
    const text = await readCapped(res, 64 * 1024);
    if (res.status !== 409) return false;
    return (JSON.parse(text) as { error?: { details?: { reason?: unknown } } }).error?.details?.reason === FEDERATION_LOOP;
  } catch {
    return false;
  }
}
