import { performance } from 'node:perf_hooks';
import { can, type Principal } from '../access/index.ts';
import { type AuditInput, recordAuditDeferred } from '../audit/index.ts';
import { EVERYONE, type Viewer, viewerKey } from '../documents/index.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import type { ActivityHandle } from './activity.ts';
import { OVERFETCH, planDamping } from './damping.ts';
import { computeUserEntropy, DEFAULT_ENTROPY_OPTIONS, type UserEntropy } from './entropy.ts';
import { INTENT_DIMENSIONS, inferIntent, resolveIntent } from './intent.ts';
import type { FederatedItem } from './item.ts';
import { retrieveLocal } from './local.ts';
import { nodeWithKey, type RemoteNodeWithKey } from './nodes.ts';
import { rankLocal } from './rank.ts';
import { FEDERATION_LOOP, queryRemoteNode } from './remote.ts';
import { type FederatedQuery, federatedRequestSchema, normalizeRequest, queryHash } from './request.ts';
import type { FederatedResponse } from './schema.ts';
import { type FanOut, type FederationDeps, type LocalAnswer, UNHEALTHY_COOLDOWN_MS } from './service.ts';
import { loadActivity, loadQueryContext, type QueryContextRows, recordActivity, tombstonesFor } from './store.ts';
import { compareItems, surfaceItems, takeWithTombstones } from './surface.ts';
import { contentTerms } from './terms.ts';
import { tombstoneMatcher } from './tombstone.ts';
import { translatorFrom } from './translate.ts';

export interface RunOptions {
  /** `/v1/federate/force`: bypass the result cache and ask every selected node, even ones that timed out recently. */
  readonly force?: boolean;
  /** The request came from another Atrium node: answer from local sources only, without entropy or activity. */
  readonly hop?: boolean;
  /** With `hop`: the originating node is damping, so critical items go first within the budget (header CRITICAL_FIRST_HEADER). */
  readonly criticalFirst?: boolean;
  /** With `hop`: the terms of the user's recent queries at the originating node (header CONTEXT_TERMS_HEADER). */
  readonly contextTerms?: readonly string[];
  /** With `hop`: the originating tenant's federation origin id (header ORIGIN_HEADER); this tenant's own is a loop. */
  readonly origin?: string;
  /** Whose documents the local sources answer with (identity/view.ts); absent = EVERYONE (no ACL or public). */
  readonly viewer?: Viewer;
  /** The person `viewer` is (a person's view, not a bypass): forwarded to remote nodes, which answer for them (FORWARDED_FOR_HEADER). */
  readonly forwardedFor?: string;
}

interface Selection {
  /** Local connector ids to search; null = every local source. */
  readonly local: readonly string[] | null;
  readonly searchLocal: boolean;
  readonly localIds: readonly string[];
  readonly remotes: readonly { node: RemoteNodeWithKey; sub: string[] | null }[];
}

const ZERO_ENTROPY: UserEntropy = { entropy: 0, level: 'very_low', topic_bits: 0, rate_bits: 0, topics: 0, events: 0 };

/**
 * The federated query (docs/ranking.md): validates, hashes, infers intent, computes the user's entropy and
 * damping plan, fans out to the selected local sources and remote Atrium nodes under a per-node deadline
 * (cached per query_hash + user + document generation unless forced), ranks, records activity and audit.
 * Throws AppError: 400 invalid request or unknown node, 504 when no selected node answered in time.
 */
export async function runFederatedQuery(deps: FederationDeps, principal: Principal, input: unknown, opts: RunOptions = {}): Promise<FederatedResponse> {
  const started = performance.now();
  const parsed = federatedRequestSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ path: ['body', ...i.path].join('.'), message: i.message }));
    throw Errors.validation(`invalid ${problems[0]?.path ?? 'body'}: ${problems[0]?.message ?? 'invalid'}`, problems);
  }
  const q = normalizeRequest(parsed.data);
  const hash = queryHash(q);
  const now = deps.clock.now();
  const hop = opts.hop === true;
  const terms = contentTerms(q.query);
  // The user's activity comes from memory (see activity.ts), read from the table only when cold or stale;
  // then one round trip for the tenant's sources, nodes, cache generation and tombstone count.
  const activity = hop ? null : await userActivity(deps, principal.tenantId, q.user_id, now);
  try {
    const context = await loadQueryContext(deps.db, principal.tenantId, !hop);
    if (hop && opts.origin && opts.origin === context.origin) throw federationLoop();
    const { response, audit } = await answer(deps, principal, q, opts, { started, hash, now, terms, context, history: activity?.events ?? [] });
    // Both written behind the response, in one batch (GET /v1/audit waits for pending events).
    activity?.done({ at: now, queryHash: hash, terms });
    recordAuditDeferred(deps.db, audit, (err, lost) => deps.log.error({ err, lost }, 'federation activity or audit rows could not be written'));
    return response;
  } catch (err) {
    activity?.done(null);
    throw err;
  }
}

interface Prepared {
  readonly started: number;
  readonly hash: string;
  readonly now: Date;
  readonly terms: string[];
  readonly context: QueryContextRows;
  readonly history: readonly { at: Date; terms: readonly string[] }[];
}

async function answer(deps: FederationDeps, principal: Principal, q: FederatedQuery, opts: RunOptions, p: Prepared): Promise<{ response: FederatedResponse; audit: AuditInput }> {
  const { started, hash, now, terms, history } = p;
  const tenantId = principal.tenantId;
  const settings = deps.config.federation;
  const hop = opts.hop === true;
  const inferred = inferIntent(q.query);
  const intent = resolveIntent(q.intent_signal, inferred);
  const entropy = hop ? ZERO_ENTROPY : computeUserEntropy([...history, { at: now, terms }], now, DEFAULT_ENTROPY_OPTIONS, settings.dampingThreshold);
  const plan = planDamping(entropy.entropy, q.max_results, settings.dampingThreshold);
  // While damping, critical items go first at every stage: each source's budget, each remote node's, the answer.
  const criticalFirst = plan.active || (hop && opts.criticalFirst === true);
  // The user's earlier queries (context sensitivity): the originating node owns them and sends them along.
  const contextTerms = new Set(hop ? (opts.contextTerms ?? []) : history.flatMap((h) => h.terms));

  const selection = selectNodes(deps, p.context, q, hop);
  const failed: { node: string; reason: string }[] = [];
  const service = deps.federation;
  const nowMs = now.getTime();
  const remotes = selection.remotes.filter(({ node }) => {
    const until = service?.unhealthyUntil.get(node.node_id) ?? 0;
    if (!opts.force && until > nowMs) {
      failed.push({ node: node.name, reason: 'skipped: timed out recently (use /v1/federate/force)' });
      return false;
    }
    return true;
  });
  const selectedCount = (selection.searchLocal ? 1 : 0) + selection.remotes.length;

  // Only the local sources' part is cached: it is invalidated by the document generation, which a remote
  // node's changes do not touch, so remote nodes are asked every time (each answers repeats from its own cache).
  let cacheState: 'hit' | 'miss' | 'bypass' = 'bypass';
  let cachedLocal: LocalAnswer | undefined;
  let cacheKey: string | null = null;
  if (service && settings.cacheTtlMs > 0 && !opts.force && selection.searchLocal) {
    // A trained, retrained or deleted translation changes how other models' passages score: a new key.
    // Per reader too: the local answer holds only what this view may read, so another view never gets it.
    cacheKey = [tenantId, hash, p.context.generation, p.context.translations, hop ? 'hop' : 'origin', selection.localIds.join(','), viewerKey(opts.viewer ?? EVERYONE)].join('|');
    cachedLocal = service.cache.get(cacheKey, nowMs);
    cacheState = cachedLocal ? 'hit' : 'miss';
  }
  // What a remote node said when it failed is for admins (who registered it); other callers see its status.
  const detailed = can(principal, 'admin');
  const result = await fanOut(
    deps,
    tenantId,
    q,
    selection,
    remotes,
    { budget: plan.per_node_budget, criticalFirst, intent, contextTerms, cachedLocal, origin: p.context.origin, detailed, viewer: opts.viewer ?? EVERYONE, forwardedFor: opts.forwardedFor },
    failed,
  );
  const fan = result.fan;
  if (result.rejected) throw Errors.validation(`a remote node rejected the request: ${result.rejected}`, [{ path: 'body.node_ids', message: result.rejected }]);
  if (selectedCount > 0 && result.answered === 0) {
    const detail = failed.map((f) => `${f.node}: ${f.reason}`).join('; ');
    // A node skipped because it timed out recently counts as timed out.
    if (result.timedOut + (selection.remotes.length - remotes.length) > 0) throw Errors.timeout(`federation timeout: no node answered within ${settings.deadlineMs} ms (${detail})`);
    throw Errors.federationFailed(`federation failed: no selected node answered (${detail})`);
  }
  if (cacheKey && service && !cachedLocal && result.localAnswer) service.cache.set(cacheKey, result.localAnswer, nowMs);

  // Tombstones are read on every query (not cached) so a forget request takes effect at once.
  const docIds = [...new Set(fan.local.map((c) => c.passage.document_id))];
  const sources = [...new Set(fan.local.map((c) => c.passage.source_node))];
  const tombstoneOf = tombstoneMatcher(p.context.activeTombstones > 0 ? await tombstonesFor(deps.db, tenantId, docIds, sources) : []);
  const local = capPerNode(
    rankLocal(fan.local, { now, intent, lambda: settings.decayLambda, userId: q.user_id, contextTerms, tombstoneOf, includeReasoning: q.include_reasoning }),
    plan.per_node_budget,
    criticalFirst,
  );
  const items = surfaceItems([...local, ...fan.remote], entropy.level, plan, criticalFirst).map((i) => (q.include_reasoning ? i : withoutReasoning(i)));

  const audit: AuditInput = {
    tenantId,
    action: Ops.federationQuery,
    actorId: principal.id,
    userId: q.user_id,
    at: now,
    details: {
      query_hash: hash,
      nodes_consulted: fan.consulted,
      item_count: items.length,
      user_entropy: entropy.entropy,
      damping_active: plan.active,
      forced: opts.force === true,
      cache: cacheState,
      ...(hop ? { hop: true } : {}),
    },
  };

  const response: FederatedResponse = {
    query_hash: hash,
    items,
    nodes_consulted: [...fan.consulted],
    latency_ms: Math.max(0, Math.round(performance.now() - started)),
    user_entropy: entropy.entropy,
    damping_active: plan.active,
    ...(q.include_reasoning
      ? {
          reasoning: {
            intent: { ...intent },
            intent_inferred: INTENT_DIMENSIONS.filter((d) => q.intent_signal?.[d] === undefined),
            entropy_level: entropy.level,
            topic_bits: entropy.topic_bits,
            rate_bits: entropy.rate_bits,
            surfaced_limit: plan.surfaced,
            per_node_budget: plan.per_node_budget,
            cache: cacheState,
            nodes_failed: failed,
          },
        }
      : {}),
  };
  return { response, audit };
}

/** The user's recent activity: from the service's in-memory log, or straight from the table without one. */
async function userActivity(deps: FederationDeps, tenantId: string, userId: string, now: Date): Promise<ActivityHandle> {
  const since = new Date(now.getTime() - DEFAULT_ENTROPY_OPTIONS.windowMinutes * 60_000);
  const log = deps.federation?.activity;
  if (log) return log.history(deps.db, tenantId, userId, since, DEFAULT_ENTROPY_OPTIONS.maxEvents);
  const events = await loadActivity(deps.db, tenantId, userId, since, DEFAULT_ENTROPY_OPTIONS.maxEvents);
  return {
    events,
    done(event) {
      if (event) void recordActivity(deps.db, { tenantId, userId, ...event }).catch((err: unknown) => deps.log.error({ err }, 'federation activity could not be written'));
    },
  };
}

function selectNodes(deps: FederationDeps, context: QueryContextRows, q: FederatedQuery, hop: boolean): Selection {
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
      `unknown node_ids: ${unknown.join(', ')} (see GET /v1/nodes)`,
      unknown.map((id) => ({ path: 'body.node_ids', message: `unknown node '${id}'` })),
    );
  }
  return { local, searchLocal: local.length > 0, localIds: local, remotes: [...remote.values()] };
}

interface FanOutResult {
  readonly fan: FanOut;
  /** Nodes that answered (the local sources count as one). */
  readonly answered: number;
  /** Nodes that missed the deadline. */
  readonly timedOut: number;
  /** A remote node's 400 (e.g. an unknown `<node>/<source>`): the request itself is invalid. */
  readonly rejected: string | null;
  /** The local part when it was searched now (not from the cache). */
  readonly localAnswer: LocalAnswer | null;
}

async function fanOut(
  deps: FederationDeps,
  tenantId: string,
  q: FederatedQuery,
  selection: Selection,
  remotes: Selection['remotes'],
  o: {
    budget: number;
    criticalFirst: boolean;
    intent: ReturnType<typeof inferIntent>;
    contextTerms: ReadonlySet<string>;
    cachedLocal: LocalAnswer | undefined;
    origin: string;
    /** Failed nodes are reported with the (masked) message from their answer, else with their status only. */
    detailed: boolean;
    viewer: Viewer;
    forwardedFor: string | undefined;
  },
  failed: { node: string; reason: string }[],
): Promise<FanOutResult> {
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
  return { fan: { local, remote, consulted }, answered, timedOut, rejected, localAnswer };
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

/**
 * Keeps each local source's best `budget` items (critical ones first while damping): the damping budget
 * applies per node, not only to the final list.
 */
/** At most `budget` items per source, tombstoned ones keeping their reserved places (surface.ts takeWithTombstones). */
function capPerNode(items: FederatedItem[], budget: number, criticalFirst: boolean): FederatedItem[] {
  const order = compareItems(criticalFirst);
  const byNode = new Map<string, FederatedItem[]>();
  for (const i of [...items].sort(order)) {
    const group = byNode.get(i.source_node);
    if (group) group.push(i);
    else byNode.set(i.source_node, [i]);
  }
  return [...byNode.values()].flatMap((group) => takeWithTombstones(group, budget)).sort(order);
}

function withoutReasoning(i: FederatedItem): FederatedItem {
  if (i.reasoning === undefined) return i;
  const { reasoning: _drop, ...rest } = i;
  return rest;
}

/** A hop request that carries this tenant's own origin id: 409, details.reason `federation_loop` (remote.ts ORIGIN_HEADER). */
export function federationLoop() {
  return Errors.conflict('this node is the origin of the request: it is registered as a remote node of itself (the same instance and tenant under another name or behind a proxy), or one of the two runs on a copy of the other\'s database (`atrium tenants reset-origin <tenant>` on the copy)', {
    reason: FEDERATION_LOOP,
  });
}
