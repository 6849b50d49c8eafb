import { z } from 'zod';
import { fetchFailure } from '../platform/errors.ts';
import type { FederationDeps, RemoteNodeInfo } from './deps.ts';
import type { RemoteNodeWithKey } from './nodes.ts';
import { HOP_HEADER, ORIGIN_HEADER, readCapped } from './remote.ts';

/** A successful answer is reused this long; a failure is not cached (the next listing asks again). */
export const REMOTE_INFO_TTL_MS = 60_000;
/** A node's model list and sources fit in far less. */
const REMOTE_INFO_MAX_BYTES = 1024 * 1024;

const modelsResponse = z.object({ models: z.array(z.object({ id: z.string(), default: z.boolean().optional() })) });
const nodesResponse = z.object({
  nodes: z.array(z.object({ kind: z.string(), embedding_model: z.string().nullable().optional(), embedding_models: z.array(z.string()).optional() })),
});

/**
 * Asks a remote node for its query model (GET /v1/embeddings/models, the default one) and its sources'
 * models (GET /v1/nodes, local sources only), within `deadlineMs`. Never throws.
 */
export async function fetchRemoteInfo(node: RemoteNodeWithKey, opts: { deadlineMs: number; fetch?: typeof fetch; origin?: string }): Promise<RemoteNodeInfo> {
  const signal = AbortSignal.timeout(opts.deadlineMs);
  const get = async (p: string): Promise<unknown> => {
    // The hop header: the remote lists its own sources only (no describing of its remotes, so no loop); the
    // origin header: a node that is this tenant itself says so (409) instead of describing itself.
    const headers = { authorization: `Bearer ${node.apiKey}`, [HOP_HEADER]: '1', ...(opts.origin ? { [ORIGIN_HEADER]: opts.origin } : {}) };
    const res = await (opts.fetch ?? fetch)(`${node.url}${p}`, { headers, signal, redirect: 'manual' });
    const text = await readCapped(res, REMOTE_INFO_MAX_BYTES);
    if (res.status === 409 && p === '/v1/nodes') throw new Error('it leads back to this instance (the same tenant through another name or a proxy)');
    if (!res.ok) throw new Error(`${p}: HTTP ${res.status}`);
    return JSON.parse(text);
  };
  try {
    const [models, nodes] = await Promise.all([get('/v1/embeddings/models'), get('/v1/nodes')]);
    const m = modelsResponse.safeParse(models);
    const n = nodesResponse.safeParse(nodes);
    if (!m.success || !n.success) return { embedding_model: null, embedding_models: [], status: 'unreachable: unexpected response' };
    const query = m.data.models.find((x) => x.default)?.id ?? null;
    const all = new Set<string>(query ? [query] : []);
    for (const s of n.data.nodes) if (s.kind === 'local') for (const id of s.embedding_models ?? (s.embedding_model ? [s.embedding_model] : [])) all.add(id);
    return { embedding_model: query, embedding_models: [...all], status: 'online' };
  } catch (err) {
    const name = (err as Error).name;
    const reason = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${opts.deadlineMs} ms` : fetchFailure(err);
    return { embedding_model: null, embedding_models: [], status: `unreachable: ${reason}` };
  }
}

/** GET /v1/nodes: each remote node's models, from the service's cache or asked now (in parallel). */
export async function describeRemoteNodes(deps: FederationDeps, nodes: readonly RemoteNodeWithKey[], origin?: string): Promise<RemoteNodeInfo[]> {
  const service = deps.federation;
  const nowMs = deps.clock.now().getTime();
  return Promise.all(
    nodes.map(async (node) => {
      const key = `${node.node_id}|${node.url}`;
      const cached = service?.remoteInfo.get(key, nowMs);
      if (cached) return cached;
      const info = await fetchRemoteInfo(node, { deadlineMs: deps.config.federation.deadlineMs, fetch: service?.fetch, origin });
      if (info.status === 'online') service?.remoteInfo.set(key, info, nowMs);
      return info;
    }),
  );
}
