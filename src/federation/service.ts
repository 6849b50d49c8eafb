import type { Config } from '../config/index.ts';
import type { EmbeddingRegistry } from '../embeddings/provider.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { egressFetch } from '../platform/egress.ts';
import type { Logger } from '../platform/log.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { TranslationRegistry } from '../translations/index.ts';
import { type ActivityLog, createActivityLog } from './activity.ts';
import { createTtlCache, type TtlCache } from './cache.ts';
import type { FederatedItem } from './item.ts';
import type { LocalCandidate } from './rank.ts';
import { REMOTE_INFO_TTL_MS, type RemoteNodeInfo } from './remote-info.ts';
import type { Translator } from './translate.ts';

/** What one fan-out produced. */
export interface FanOut {
  readonly local: readonly LocalCandidate[];
  readonly remote: readonly FederatedItem[];
  readonly consulted: readonly string[];
}

/** The local sources' part of a fan-out: what the result cache holds, per query_hash, user, document generation and source selection. */
export interface LocalAnswer {
  readonly candidates: readonly LocalCandidate[];
  readonly consulted: readonly string[];
}

/** A remote node that timed out is skipped by normal queries for this long (`/force` still asks it). */
export const UNHEALTHY_COOLDOWN_MS = 30_000;

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

export function createFederationService(config: Config, opts: { translator?: Translator; fetch?: typeof fetch; log?: Logger } = {}): FederationService {
  const { log, ...rest } = opts;
  const activity = createActivityLog({ onError: (err, lost) => log?.error({ err, lost }, 'federation activity could not be written') });
  return {
    cache: createTtlCache<LocalAnswer>(config.federation.cacheTtlMs, 500),
    unhealthyUntil: new Map(),
    activity,
    remoteInfo: createTtlCache<RemoteNodeInfo>(REMOTE_INFO_TTL_MS, 1000),
    ...rest,
    // Remote nodes are reached under the egress policy, and never through a redirect (their key is attached).
    fetch: rest.fetch ?? egressFetch(config.egress, { log }),
  };
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
