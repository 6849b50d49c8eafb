import type { Viewer } from '../documents/index.ts';
import { OVERFETCH } from './damping.ts';
import type { FederationDeps, LocalAnswer } from './deps.ts';
import type { IntentSignal } from './intent.ts';
import type { FederatedItem } from './item.ts';
import { retrieveLocal } from './local.ts';
import { queryRemoteNode } from './remote.ts';
import type { FederatedQuery } from './request.ts';
import type { NodeFailure, Selection } from './select.ts';
import { type FanOut, UNHEALTHY_COOLDOWN_MS } from './service.ts';
import { translatorFrom } from './translate.ts';

export interface FanOutResult {
  readonly fan: FanOut;
  /** Nodes that answered (the local sources count as one). */
  readonly answered: number;
  /** Nodes that missed the deadline. */
  readonly timedOut: number;
  /** A remote node's 400 (e.g. an unknown `<node>/<source>`): the request itself is invalid. */
  readonly rejected: string | null;
  /** The local part when it was searched now (not from the cache). */
  readonly localAnswer: LocalAnswer | null;
  /** The nodes that did not answer, with why. */
  readonly failed: readonly NodeFailure[];
}

export interface FanOutOptions {
  readonly budget: number;
  readonly criticalFirst: boolean;
  readonly intent: IntentSignal;
  readonly contextTerms: ReadonlySet<string>;
  readonly cachedLocal: LocalAnswer | undefined;
  readonly origin: string;
  /** Failed nodes are reported with the (masked) message from their answer, else with their status only. */
  readonly detailed: boolean;
  readonly viewer: Viewer;
  readonly forwardedFor: string | undefined;
}

/**
 * Asks the local sources (unless their answer is cached) and each remote node in parallel, each under the
 * federation deadline. A remote node that times out is marked unhealthy for UNHEALTHY_COOLDOWN_MS.
 */
export async function fanOut(deps: FederationDeps, tenantId: string, q: FederatedQuery, selection: Selection, remotes: Selection['remotes'], o: FanOutOptions): Promise<FanOutResult> {
  const failed: NodeFailure[] = [];
  const deadlineMs = deps.config.federation.deadlineMs;
  const service = deps.federation;
  const localTask =
    selection.searchLocal && !o.cachedLocal ? withDeadline((signal) => searchLocal(deps, tenantId, q, selection, o.viewer, signal), deadlineMs) : null;
  const remoteTasks = remotes.map(({ node, sub }) =>
    queryRemoteNode(node, q, {
      intent: o.intent,
      budget: o.budget,
      criticalFirst: o.criticalFirst,
      contextTerms: [...o.contextTerms],
      subNodes: sub,
      deadlineMs,
      ...(o.forwardedFor ? { forwardedFor: o.forwardedFor } : {}),
      fetch: service?.fetch,
      origin: o.origin,
    }).then((outcome) => ({
      node,
      sub,
      outcome,
    })),
  );
  const consulted: string[] = [];
  let answered = 0;
  let timedOut = 0;
  let rejected: string | null = null;
  let localAnswer: LocalAnswer | null = null;
  let local: FanOut['local'] = [];
  if (o.cachedLocal) {
    answered++;
    local = o.cachedLocal.candidates;
    consulted.push(...o.cachedLocal.consulted);
  } else if (localTask) {
    const r = await localTask;
    if (r.ok) {
      answered++;
      local = r.value;
      const seen = new Set(selection.localIds);
      for (const c of local) seen.add(c.passage.source_node);
      localAnswer = { candidates: local, consulted: [...seen].sort() };
      consulted.push(...localAnswer.consulted);
    } else {
      timedOut++;
      failed.push({ node: 'local', reason: `no answer within ${deadlineMs} ms` });
      deps.log.warn({ tenantId, deadlineMs }, 'local sources missed the federation deadline');
    }
  }
  const remote: FederatedItem[] = [];
  for (const { node, sub, outcome } of await Promise.all(remoteTasks)) {
    if (outcome.ok) {
      answered++;
      service?.unhealthyUntil.delete(node.node_id);
      remote.push(...outcome.items);
      consulted.push(...(outcome.consulted.length ? outcome.consulted : [node.name]));
      continue;
    }
    if (outcome.reason === 'timeout') {
      timedOut++;
      service?.unhealthyUntil.set(node.node_id, deps.clock.now().getTime() + UNHEALTHY_COOLDOWN_MS);
    }
    // The request passed this node's own validation, so a remote 400 concerns what only the remote can
    // check: the sources named under it (`paris/nope`). Otherwise (e.g. version skew) the node is left out.
    if (outcome.reason === 'rejected' && sub) rejected ??= `${node.name}: ${outcome.message}`;
    failed.push({ node: node.name, reason: o.detailed ? outcome.message : outcome.status });
    deps.log.warn({ tenantId, node: node.name, reason: outcome.message }, 'remote node left out of the federated answer');
  }
  return { fan: { local, remote, consulted }, answered, timedOut, rejected, localAnswer, failed };
}

async function searchLocal(deps: FederationDeps, tenantId: string, q: FederatedQuery, selection: Selection, viewer: Viewer, signal: AbortSignal) {
  // One hybrid query over every selected local source, as deep as without damping (the result cache holds
  // it for any budget): damping shrinks what each source keeps after ranking (critical items first), not
  // what is looked at. Twice the undamped per-node budget leaves room for several passages of one document.
  const limit = Math.min(400, q.max_results * OVERFETCH * 2);
  const r = await retrieveLocal(
    {
      db: deps.db,
      log: deps.log,
      embeddings: deps.embeddings,
      translator: deps.federation?.translator ?? (deps.translations ? translatorFrom(deps.translations) : undefined),
    },
    // Half the deadline for the query's vector: a remote model that is down still leaves time for BM25.
    { tenantId, query: q.query, sources: selection.local, filters: q.filters, limit, viewer, signal, embedTimeoutMs: deps.config.federation.deadlineMs / 2 },
  );
  return r.candidates;
}

type Deadlined<T> = { ok: true; value: T } | { ok: false };

/** Runs `task` with an abort signal fired at the deadline; resolves `{ok: false}` if it is missed. Task errors propagate. */
async function withDeadline<T>(task: (signal: AbortSignal) => Promise<T>, ms: number): Promise<Deadlined<T>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Deadlined<T>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ ok: false });
    }, ms);
  });
  try {
    const run = task(controller.signal).then(
      (value): Deadlined<T> => ({ ok: true, value }),
      (err: unknown): Deadlined<T> => {
        if (controller.signal.aborted) return { ok: false };
        throw err;
      },
    );
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

