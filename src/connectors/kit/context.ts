import type { Logger } from 'pino';
import { timeoutSignal } from '../../platform/abort.ts';
import { checkEgress } from '../../platform/egress.ts';
import type { Queryable } from '../../platform/db/executor.ts';
import { issuesSentence } from '../../platform/errors.ts';
import { NonRetriableError } from '../../platform/jobs/index.ts';
import { maskSecrets, secretStrings } from '../../platform/secrets.ts';
import type { ConnectorDeps } from '../deps.ts';
import { currentOAuthTokens } from '../oauth/flow.ts';
import { type ConnectorRecord, getConnector, updateConnectorFields } from '../store.ts';
import type { AnyKind, SourceContext } from './contract.ts';
import { findVendorError, SourceSettingsError, VendorAuthError, VendorRateLimitedError } from './errors.ts';
import { effectiveLimits, rateLimitDelayMs } from './limits.ts';
import { blockConnector, takeConnectorToken, unlimited } from './rate-buckets.ts';

export { findVendorError, rateLimitFromResponse } from './errors.ts';

export { abortableSleep } from './sleep.ts';

import { abortableSleep as sleep } from './sleep.ts';

export interface AcquireOptions {
  /** Called when a wait is a vendor 429's block stored by any process (the sync engine shows `rate_limited`). */
  readonly onBlocked?: (waitMs: number) => Promise<void>;
  /** Called when a blocked wait is over. */
  readonly onUnblocked?: () => Promise<void>;
  /** A fake clock for tests (ms); by default the database's clock. */
  readonly nowMs?: () => number;
}

/**
 * Waits for a token of the connector's bucket, shared by every process through the database (rate-buckets.ts):
 * one statement per vendor request; while the bucket is dry or a vendor 429 blocks the connector, sleeps the
 * answered wait and asks again. Kinds with no limits (filesystem) skip the database.
 */
export function connectorAcquire(db: Queryable, connector: ConnectorRecord, kind: AnyKind, signal: AbortSignal, opts: AcquireOptions = {}): () => Promise<void> {
  const limits = effectiveLimits(connector.settings, kind.vendorLimits);
  const key = { tenantId: connector.tenantId, connectorId: connector.id };
  if (unlimited(limits)) return async () => {};
  return async () => {
    let blocked = false;
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const r = await takeConnectorToken(db, key, limits, opts.nowMs?.());
      if (r.waitMs === 0) {
        if (blocked) await opts.onUnblocked?.();
        return;
      }
      if (r.blocked && !blocked) {
        blocked = true;
        await opts.onBlocked?.(r.waitMs);
      }
      await sleep(r.waitMs, signal);
    }
  };
}

/**
 * The longest one vendor request may take, answer body included. A hung call would otherwise hold its worker slot
 * (and a paused connector's run) for Node's own ~5 min header timeout; a timed-out call fails like a network error
 * (retried with the job's backoff).
 */
export const VENDOR_REQUEST_TIMEOUT_MS = 60_000;

/** Methods a request may be sent twice with: a second copy changes nothing at the vendor. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * A connection the vendor closed while the client still held it for reuse (its keep-alive ran out while this process
 * was busy): the request never reached the vendor, so sending it again on a fresh connection is safe.
 */
function staleConnection(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } } | null)?.cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

/**
 * fetch behind the connector's bucket. Responses pass through untouched, so an SDK sees the vendor's
 * real 429 (with its headers) and its error type can be mapped; fetch-based kinds call `rateLimitFromResponse`.
 * An idempotent request whose reused connection turns out closed is sent once more, at once, instead of failing the
 * whole page into the job's backoff.
 */
export function vendorFetch(acquire: () => Promise<void>, signal: AbortSignal, timeoutMs = VENDOR_REQUEST_TIMEOUT_MS): typeof fetch {
  return async (input, init) => {
    await acquire();
    const signals = [signal, timeoutSignal(timeoutMs), ...(init?.signal ? [init.signal] : [])];
    const request = { ...init, signal: AbortSignal.any(signals) };
    try {
      return await fetch(input, request);
    } catch (err) {
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      if (!staleConnection(err) || !IDEMPOTENT.has(method) || request.signal.aborted) throw err;
      return fetch(input, request);
    }
  };
}

/**
 * When `err` is a vendor rate limit, blocks the connector in every process for its Retry-After (else one backoff
 * step) and returns it; otherwise returns null. For callers outside the sync engine (webhooks, actions, validation).
 */
export async function shareRateLimit(db: Queryable, connector: { tenantId: string; id: string }, err: unknown): Promise<VendorRateLimitedError | null> {
  const vendor = findVendorError(err);
  if (!(vendor instanceof VendorRateLimitedError)) return null;
  await blockConnector(db, { tenantId: connector.tenantId, connectorId: connector.id }, rateLimitDelayMs(1, vendor.retryAfterMs));
  return vendor;
}

/** Replaces the connector's credential values in a message with `***`. */
export type CredentialMask = (text: string) => string;

/**
 * The mask for vendor messages about this connector: every string (8+ characters) of its credentials and OAuth
 * tokens, as in `connector` and as stored now (a refresh may have replaced the tokens since it was read), and
 * of its kind's OAuth client secret. Never throws: it runs while an error is being reported.
 */
export async function credentialMasker(deps: ConnectorDeps, connector: ConnectorRecord): Promise<CredentialMask> {
  const sealed = new Set([connector.credentialsEnc, connector.oauthTokensEnc]);
  const current = await getConnector(deps.db, connector.tenantId, connector.id).catch(() => null);
  if (current) sealed.add(current.credentialsEnc).add(current.oauthTokensEnc);
  const secrets = secretStrings(deps.config.connectors.oauthClients[connector.type]?.client_secret);
  for (const s of sealed) {
    if (!s) continue;
    try {
      secretStrings(JSON.parse(deps.secrets.open(s)), secrets);
    } catch {
      // Unreadable (another ATRIUM_SECRET_KEY): then no vendor call could have sent it either.
    }
  }
  return (text) => maskSecrets(text, secrets);
}

/**
 * `err` as it may be rethrown to the job queue, which stores and logs its message: masked, with the same
 * retry semantics (the vendor's error object, which may hold the secret elsewhere, is dropped when it had to be).
 */
export function maskedError(err: unknown, mask: CredentialMask): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const masked = mask(message);
  if (masked === message) return err;
  return err instanceof NonRetriableError ? new NonRetriableError(masked) : new Error(masked);
}

/** Opens the connector's sealed credentials (and OAuth tokens, refreshed when near expiry) into the kind's context. */
export async function buildSourceContext(
  deps: ConnectorDeps,
  connector: ConnectorRecord,
  kind: AnyKind,
  opts: { signal: AbortSignal; log: Logger; acquire?: AcquireOptions },
): Promise<SourceContext<unknown, unknown>> {
  const stored = connector.credentialsEnc ? (JSON.parse(deps.secrets.open(connector.credentialsEnc)) as Record<string, unknown>) : {};
  const now = deps.clock.now();
  const tokens = await currentOAuthTokens(deps, connector, now);
  const merged = tokens ? { ...stored, ...tokens.fields, access_token: tokens.access_token } : stored;
  const credentials = kind.credentials.safeParse(merged);
  if (!credentials.success) throw new VendorAuthError('stored credentials no longer match the connector kind: supply new credentials');
  // Named in a sentence, not zod's JSON, and not retried: settings that do not parse will not parse next time.
  const settings = kind.settings.safeParse(connector.settings);
  if (!settings.success) throw new SourceSettingsError(issuesSentence(settings.error.issues, 'settings'));
  const acquire = connectorAcquire(deps.db, connector, kind, opts.signal, opts.acquire);
  return {
    connectorId: connector.id,
    tenantId: connector.tenantId,
    credentials: credentials.data,
    settings: settings.data,
    apiBaseUrl: deps.config.connectors.apiUrls[kind.type] ?? kind.apiBaseUrl?.(settings.data),
    fetch: vendorFetch(acquire, opts.signal),
    checkEgress: (url) => checkEgress(deps.config.egress, url, { log: opts.log }),
    acquire,
    signal: opts.signal,
    now,
    log: opts.log,
    stored: async (prefix) => {
      if (!deps.connectorDocuments) throw new Error('no document store is composed: the runtime must provide connectorDocuments');
      return deps.connectorDocuments.listStored(connector.tenantId, connector.id, prefix);
    },
  };
}

/**
 * Stores what a credential check discovered (`CredentialCheck.settings`: an Atlassian cloudId, a Drive's root) into the
 * connector's settings, parsed with the kind's schema like user input, and returns the source context with them (and
 * the API base they may imply). A patch that does not parse is refused (thrown) and nothing is stored.
 */
export async function applySettingsPatch(
  deps: ConnectorDeps,
  connector: ConnectorRecord,
  kind: AnyKind,
  source: SourceContext<unknown, unknown>,
  patch: Record<string, unknown> | undefined,
): Promise<SourceContext<unknown, unknown>> {
  if (!patch || Object.keys(patch).length === 0) return source;
  const merged = { ...connector.settings, ...patch };
  const settings = kind.settings.parse(merged);
  await updateConnectorFields(deps.db, connector.tenantId, connector.id, { settings: merged });
  return { ...source, settings, apiBaseUrl: deps.config.connectors.apiUrls[kind.type] ?? kind.apiBaseUrl?.(settings) };
}
