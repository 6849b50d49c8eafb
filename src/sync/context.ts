import type { Logger } from 'pino';
import type { AnyKind, SourceContext } from '../connectors/contract.ts';
import type { ConnectorDeps } from '../connectors/deps.ts';
import { currentOAuthTokens } from '../connectors/oauth/flow.ts';
import type { ConnectorRecord } from '../connectors/store.ts';
import { createBuckets, effectiveLimits, takeToken, type WindowBucket } from './limits.ts';
import { VendorAuthError, VendorRateLimitedError } from './vendor-errors.ts';
export { rateLimitFromResponse } from './vendor-errors.ts';

/** In-process token buckets per connector (one worker process; documented: N workers allow N × the rate). */
const buckets = new Map<string, { signature: string; buckets: WindowBucket[] }>();

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
export { sleep as abortableSleep };

export function connectorAcquire(connector: ConnectorRecord, kind: AnyKind, signal: AbortSignal): () => Promise<void> {
  const limits = effectiveLimits(connector.settings, kind.vendorLimits);
  const signature = JSON.stringify(limits);
  const key = `${connector.tenantId}/${connector.id}`;
  let entry = buckets.get(key);
  if (!entry || entry.signature !== signature) {
    entry = { signature, buckets: createBuckets(limits, Date.now()) };
    buckets.set(key, entry);
  }
  const state = entry;
  return async () => {
    for (;;) {
      const wait = takeToken(state.buckets, Date.now());
      if (wait === 0) return;
      await sleep(wait, signal);
    }
  };
}

/**
 * fetch behind the connector's bucket. Responses pass through untouched, so an SDK sees the vendor's
 * real 429 (with its headers) and its error type can be mapped; fetch-based kinds call `rateLimitFromResponse`.
 */
export function vendorFetch(acquire: () => Promise<void>, signal: AbortSignal): typeof fetch {
  return async (input, init) => {
    await acquire();
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
  };
}

/** Finds a vendor error in an error's cause chain (SDKs wrap what fetch throws). */
export function findVendorError(err: unknown): VendorRateLimitedError | VendorAuthError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof VendorRateLimitedError || e instanceof VendorAuthError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return null;
}

/** Opens the connector's sealed credentials (and OAuth tokens, refreshed when near expiry) into the kind's context. */
export async function buildSourceContext(
  deps: ConnectorDeps,
  connector: ConnectorRecord,
  kind: AnyKind,
  opts: { signal: AbortSignal; log: Logger },
): Promise<SourceContext<unknown, unknown>> {
  const stored = connector.credentialsEnc ? (JSON.parse(deps.secrets.open(connector.credentialsEnc)) as Record<string, unknown>) : {};
  const now = deps.clock.now();
  const tokens = await currentOAuthTokens(deps, connector, now);
  const merged = tokens ? { ...stored, access_token: tokens.access_token } : stored;
  const credentials = kind.credentials.safeParse(merged);
  if (!credentials.success) throw new VendorAuthError('stored credentials no longer match the connector kind: supply new credentials');
  const acquire = connectorAcquire(connector, kind, opts.signal);
  return {
    connectorId: connector.id,
    tenantId: connector.tenantId,
    credentials: credentials.data,
    settings: kind.settings.parse(connector.settings),
    apiBaseUrl: deps.config.connectors.apiUrls[kind.type],
    fetch: vendorFetch(acquire, opts.signal),
    acquire,
    signal: opts.signal,
    now,
    log: opts.log,
  };
}
