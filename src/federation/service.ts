import type { Config } from '../config/index.ts';
import { egressFetch } from '../platform/egress.ts';
import type { Logger } from '../platform/log.ts';
import { createActivityLog } from './activity.ts';
import { createTtlCache } from './cache.ts';
import type { FederationService, LocalAnswer, RemoteNodeInfo } from './deps.ts';
import type { FederatedItem } from './item.ts';
import type { LocalCandidate } from './rank.ts';
import { REMOTE_INFO_TTL_MS } from './remote-info.ts';
import type { Translator } from './translate.ts';

/** What one fan-out produced. */
export interface FanOut {
  readonly local: readonly LocalCandidate[];
  readonly remote: readonly FederatedItem[];
  readonly consulted: readonly string[];
}

/** A remote node that timed out is skipped by normal queries for this long (`/force` still asks it). */
export const UNHEALTHY_COOLDOWN_MS = 30_000;

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
