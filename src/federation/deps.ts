import type { Config } from '../config/index.ts';
import type { EmbeddingRegistry } from '../embeddings/provider.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import type { Logger } from '../platform/log.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { TranslationRegistry } from '../translations/index.ts';
import type { ActivityLog } from './activity.ts';
import type { TtlCache } from './cache.ts';
import type { LocalCandidate } from './rank.ts';
import type { Translator } from './translate.ts';

/*
 * The federated query's dependencies and per-process state, as types only: the stages (remote-info, fan-out,
 * select, query) import them from here, and service.ts builds the state, so no stage imports service.ts back.
 */

/** What GET /v1/nodes shows about a remote Atrium node, as that node reports it. */
export interface RemoteNodeInfo {
  /** The model the remote node embeds queries with (its items' `semantic_similarity` is in that space). */
  readonly embedding_model: string | null;
  /** That model first, then the other models of its sources' documents. */
  readonly embedding_models: string[];
  /** `online`, or `unreachable: <reason>` when it did not answer in time. */
  readonly status: string;
}

/** The local sources' part of a fan-out: what the result cache holds, per query_hash, user, document generation and source selection. */
export interface LocalAnswer {
  readonly candidates: readonly LocalCandidate[];
  readonly consulted: readonly string[];
}

/** Per-process state of the federated query, composed once in src/main. */
export interface FederationService {
  readonly cache: TtlCache<LocalAnswer>;
  /** Remote node id → epoch ms until which normal queries skip it. */
  readonly unhealthyUntil: Map<string, number>;
  readonly translator?: Translator;
  /** Remote node id|url → what it reported about its models (GET /v1/nodes). */
  readonly remoteInfo: TtlCache<RemoteNodeInfo>;
  /** Users' recent queries (behind user entropy), in memory and written behind the response. */
  readonly activity: ActivityLog;
  /** Outbound HTTP for remote nodes: the egress-checked fetch that follows no redirect (tests may pass their own). */
  readonly fetch?: typeof fetch;
}

/** What the federated query needs; `AppDeps` satisfies it. */
export interface FederationDeps {
  readonly config: Config;
  readonly db: DatabaseExecutor;
  readonly log: Logger;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly embeddings?: EmbeddingRegistry;
  readonly translations?: Pick<TranslationRegistry, 'findTranslation'>;
  readonly federation?: FederationService;
}
