import { performance } from 'node:perf_hooks';
import { can, type Principal } from '../access/index.ts';
import { type AuditInput, recordAuditDeferred } from '../audit/index.ts';
import { EVERYONE, type Viewer, viewerKey } from '../documents/index.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import type { ActivityHandle } from './activity.ts';
import { planDamping } from './damping.ts';
import type { FederationDeps } from './deps.ts';
import { computeUserEntropy, DEFAULT_ENTROPY_OPTIONS, type UserEntropy } from './entropy.ts';
import { type FanOutResult, fanOut } from './fan-out.ts';
import { INTENT_DIMENSIONS, inferIntent, resolveIntent } from './intent.ts';
import type { FederatedItem } from './item.ts';
import { rankLocal } from './rank.ts';
import { FEDERATION_LOOP } from './remote.ts';
import { type FederatedQuery, type FederatedRequestInput, normalizeRequest, queryHash } from './request.ts';
import type { FederatedResponse } from './schema.ts';
import { HTTP_NODES_FIELD, healthyRemotes, type NodeFailure, type NodesField, type Selection, selectNodes } from './select.ts';
import { loadActivity, loadQueryContext, type QueryContextRows, recordActivity, tombstonesFor } from './store.ts';
import { compareItems, surfaceItems, takeWithTombstones } from './surface.ts';
import { contentTerms } from './terms.ts';
import { tombstoneMatcher } from './tombstone.ts';

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
  /** How the caller names the node list in errors (default HTTP_NODES_FIELD: `body.node_ids`). */
  readonly nodesField?: NodesField;
}

const ZERO_ENTROPY: UserEntropy = { entropy: 0, level: 'very_low', topic_bits: 0, rate_bits: 0, topics: 0, events: 0 };

/**
 * The federated query (docs/ranking.md) for an already validated request (`federatedRequestSchema`: the HTTP body
 * schema, or the MCP tool's own): normalizes and hashes it, infers intent, computes the user's entropy and
 * damping plan, fans out to the selected local sources and remote Atrium nodes under a per-node deadline
 * (cached per query_hash + user + document generation unless forced), ranks, records activity and audit.
 * Throws AppError: 400 unknown node (named as `opts.nodesField`), 504 when no selected node answered in time.
 */
export async function runFederatedQuery(deps: FederationDeps, principal: Principal, request: FederatedRequestInput, opts: RunOptions = {}): Promise<FederatedResponse> {
  const started = performance.now();
  const q = normalizeRequest(request);
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

/** What the query's text and the user's recent activity decide before any node is asked. */
function planQuery(deps: FederationDeps, q: FederatedQuery, opts: RunOptions, p: Prepared) {
  const hop = opts.hop === true;
  const threshold = deps.config.federation.dampingThreshold;
  const intent = resolveIntent(q.intent_signal, inferIntent(q.query));
  const entropy = hop ? ZERO_ENTROPY : computeUserEntropy([...p.history, { at: p.now, terms: p.terms }], p.now, DEFAULT_ENTROPY_OPTIONS, threshold);
  const plan = planDamping(entropy.entropy, q.max_results, threshold);
  return {
    intent,
    entropy,
    plan,
    // While damping, critical items go first at every stage: each source's budget, each remote node's, the answer.
    criticalFirst: plan.active || (hop && opts.criticalFirst === true),
    // The user's earlier queries (context sensitivity): the originating node owns them and sends them along.
    contextTerms: new Set(hop ? (opts.contextTerms ?? []) : p.history.flatMap((h) => h.terms)),
  };
}

/**
 * The cached local answer, if any. Only the local sources' part is cached: it is invalidated by the document
 * generation, which a remote node's changes do not touch, so remote nodes are asked every time (each answers
 * repeats from its own cache).
 */
function localCache(deps: FederationDeps, tenantId: string, opts: RunOptions, p: Prepared, selection: Selection) {
  const service = deps.federation;
  if (!service || deps.config.federation.cacheTtlMs <= 0 || opts.force || !selection.searchLocal) return { key: null, hit: undefined, state: 'bypass' as const };
  // A trained, retrained or deleted translation changes how other models' passages score: a new key.
  // Per reader too: the local answer holds only what this view may read, so another view never gets it.
  const key = [tenantId, p.hash, p.context.generation, p.context.translations, opts.hop ? 'hop' : 'origin', selection.localIds.join(','), viewerKey(opts.viewer ?? EVERYONE)].join('|');
  const hit = service.cache.get(key, p.now.getTime());
  return { key, hit, state: hit ? ('hit' as const) : ('miss' as const) };
}

/** 400 when a remote node rejected the request itself; 504 / 502 when no selected node answered. */
function requireAnswer(deps: FederationDeps, selection: Selection, asked: number, result: FanOutResult, failed: readonly NodeFailure[], field: NodesField): void {
  if (result.rejected) throw Errors.validation(`a remote node rejected the request: ${result.rejected}`, [{ path: field.path, message: result.rejected }]);
  const selectedCount = (selection.searchLocal ? 1 : 0) + selection.remotes.length;
  if (selectedCount === 0 || result.answered > 0) return;
  const detail = failed.map((f) => `${f.node}: ${f.reason}`).join('; ');
  // A node skipped because it timed out recently counts as timed out.
  if (result.timedOut + (selection.remotes.length - asked) > 0) throw Errors.timeout(`federation timeout: no node answered within ${deps.config.federation.deadlineMs} ms (${detail})`);
  throw Errors.federationFailed(`federation failed: no selected node answered (${detail})`);
}

async function answer(deps: FederationDeps, principal: Principal, q: FederatedQuery, opts: RunOptions, p: Prepared): Promise<{ response: FederatedResponse; audit: AuditInput }> {
  const tenantId = principal.tenantId;
  const settings = deps.config.federation;
  const hop = opts.hop === true;
  const field = opts.nodesField ?? HTTP_NODES_FIELD;
  const { intent, entropy, plan, criticalFirst, contextTerms } = planQuery(deps, q, opts, p);
  const selection = selectNodes(deps, p.context, q, hop, field);
  const { remotes, skipped } = healthyRemotes(deps, selection, p.now.getTime(), opts.force === true);
  const cache = localCache(deps, tenantId, opts, p, selection);
  const result = await fanOut(deps, tenantId, q, selection, remotes, {
    budget: plan.per_node_budget,
    criticalFirst,
    intent,
    contextTerms,
    cachedLocal: cache.hit,
    origin: p.context.origin,
    // What a remote node said when it failed is for admins (who registered it); other callers see its status.
    detailed: can(principal, 'admin'),
    viewer: opts.viewer ?? EVERYONE,
    forwardedFor: opts.forwardedFor,
  });
  const failed = [...skipped, ...result.failed];
  requireAnswer(deps, selection, remotes.length, result, failed, field);
  if (cache.key && !cache.hit && result.localAnswer) deps.federation?.cache.set(cache.key, result.localAnswer, p.now.getTime());
  const fan = result.fan;

  // Tombstones are read on every query (not cached) so a forget request takes effect at once.
  const docIds = [...new Set(fan.local.map((c) => c.passage.document_id))];
  const sources = [...new Set(fan.local.map((c) => c.passage.source_node))];
  const tombstoneOf = tombstoneMatcher(p.context.activeTombstones > 0 ? await tombstonesFor(deps.db, tenantId, docIds, sources) : []);
  const local = capPerNode(
    rankLocal(fan.local, { now: p.now, intent, lambda: settings.decayLambda, userId: q.user_id, contextTerms, tombstoneOf, includeReasoning: q.include_reasoning }),
    plan.per_node_budget,
    criticalFirst,
  );
  const items = surfaceItems([...local, ...fan.remote], entropy.level, plan, criticalFirst).map((i) => (q.include_reasoning ? i : withoutReasoning(i)));

  const audit: AuditInput = {
    tenantId,
    action: Ops.federationQuery,
    actorId: principal.id,
    userId: q.user_id,
    at: p.now,
    details: {
      query_hash: p.hash,
      nodes_consulted: fan.consulted,
      item_count: items.length,
      user_entropy: entropy.entropy,
      damping_active: plan.active,
      forced: opts.force === true,
      cache: cache.state,
      ...(hop ? { hop: true } : {}),
    },
  };

  const response: FederatedResponse = {
    query_hash: p.hash,
    items,
    nodes_consulted: [...fan.consulted],
    latency_ms: Math.max(0, Math.round(performance.now() - p.started)),
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
            cache: cache.state,
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

/**
 * Keeps each local source's best `budget` items (critical ones first while damping): the damping budget applies
 * per node, not only to the final list; tombstoned ones keep their reserved places (surface.ts takeWithTombstones).
 */
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
