import { Errors } from '../platform/errors.ts';
import type { FederationDeps } from './deps.ts';
import { nodeWithKey, type RemoteNodeWithKey } from './nodes.ts';
import type { FederatedQuery } from './request.ts';
import type { QueryContextRows } from './store.ts';

/** A node left out of the answer, with why (`reasoning.nodes_failed`). */
export interface NodeFailure {
  readonly node: string;
  readonly reason: string;
}

/** How the caller names the node list in its errors: HTTP's `body.node_ids` (GET /v1/nodes), MCP's `sources` (list_connectors). */
export interface NodesField {
  readonly name: string;
  readonly path: string;
  readonly listedBy: string;
}

export const HTTP_NODES_FIELD: NodesField = { name: 'node_ids', path: 'body.node_ids', listedBy: 'GET /v1/nodes' };

export interface Selection {
  /** Local connector ids to search; null = every local source. */
  readonly local: readonly string[] | null;
  readonly searchLocal: boolean;
  readonly localIds: readonly string[];
  readonly remotes: readonly { node: RemoteNodeWithKey; sub: string[] | null }[];
}

/**
 * The nodes a query asks: every local source and remote node without `node_ids`, else those it names (a remote's
 * own sources as `<node>/<source>`). An unknown name is a 400 on `field`. A hop (a request from another node)
 * asks local sources only.
 */
export function selectNodes(deps: Pick<FederationDeps, 'secrets'>, context: QueryContextRows, q: FederatedQuery, hop: boolean, field: NodesField = HTTP_NODES_FIELD): Selection {
  const remoteNodes = hop ? [] : context.nodes.map((row) => nodeWithKey(row, deps.secrets));
  const localIds = context.localSourceIds;
  if (!q.node_ids) return { local: null, searchLocal: true, localIds, remotes: remoteNodes.map((node) => ({ node, sub: null })) };
  const localSet = new Set(localIds);
  const byName = new Map(remoteNodes.map((n) => [n.name, n]));
  const local: string[] = [];
  const remote = new Map<string, { node: RemoteNodeWithKey; sub: string[] | null }>();
  const unknown: string[] = [];
  for (const id of q.node_ids) {
    if (localSet.has(id)) {
      local.push(id);
      continue;
    }
    const slash = id.indexOf('/');
    const node = byName.get(slash < 0 ? id : id.slice(0, slash));
    if (!node) {
      unknown.push(id);
      continue;
    }
    const entry = remote.get(node.name) ?? { node, sub: [] as string[] | null };
    if (slash < 0) entry.sub = null;
    else if (entry.sub) entry.sub.push(id.slice(slash + 1));
    remote.set(node.name, entry);
  }
  if (unknown.length) {
    throw Errors.validation(
      `unknown ${field.name}: ${unknown.join(', ')} (see ${field.listedBy})`,
      unknown.map((id) => ({ path: field.path, message: `unknown node '${id}'` })),
    );
  }
  return { local, searchLocal: local.length > 0, localIds: local, remotes: [...remote.values()] };
}

/** The selected remote nodes to ask now, and those skipped because they timed out recently (unless `force`). */
export function healthyRemotes(deps: Pick<FederationDeps, 'federation'>, selection: Selection, nowMs: number, force: boolean): { remotes: Selection['remotes']; skipped: NodeFailure[] } {
  const skipped: NodeFailure[] = [];
  const remotes = selection.remotes.filter(({ node }) => {
    const until = deps.federation?.unhealthyUntil.get(node.node_id) ?? 0;
    if (!force && until > nowMs) {
      skipped.push({ node: node.name, reason: 'skipped: timed out recently (use /v1/federate/force)' });
      return false;
    }
    return true;
  });
  return { remotes, skipped };
}
