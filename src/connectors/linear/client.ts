import type { LinearClient } from '@linear/sdk';
import { type SourceContext, VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';
import type { LinearCredentials, LinearSettings } from './schemas.ts';

type Ctx = SourceContext<LinearCredentials, LinearSettings>;

type LinearSdk = typeof import('@linear/sdk');
let sdk: Promise<LinearSdk> | undefined;
/** Set once the SDK is loaded: an error of the SDK's classes can only exist from then on. */
let loaded: LinearSdk | undefined;
/** The SDK, loaded on the first Linear request rather than at every start (issue 29). */
function linearSdk(): Promise<LinearSdk> {
  sdk ??= import('@linear/sdk').then((m) => {
    loaded = m;
    return m;
  });
  sdk.catch(() => {
    sdk = undefined;
  });
  return sdk;
}

/** The official client pointed at Linear's GraphQL endpoint (or a fake's `<base>/graphql`); the engine owns retries. */
function linearClient(ctx: Ctx, { LinearClient }: LinearSdk): LinearClient {
  const apiUrl = ctx.apiBaseUrl ? `${ctx.apiBaseUrl.replace(/\/$/, '')}/graphql` : undefined;
  // A personal API key is sent bare in Authorization; an OAuth token as a Bearer token (the SDK does both).
  const auth = ctx.credentials.api_key ? { apiKey: ctx.credentials.api_key } : { accessToken: ctx.credentials.access_token };
  return new LinearClient({ ...auth, apiUrl, signal: ctx.signal });
}

/** Milliseconds to wait from Linear's rate-limit answer: Retry-After (s), else the requests reset (epoch ms). */
export function linearRetryAfterMs(e: { retryAfter?: number; requestsResetAt?: number }, nowMs: number): number | null {
  if (typeof e.retryAfter === 'number') return Math.max(0, e.retryAfter * 1000);
  if (typeof e.requestsResetAt === 'number') return Math.max(0, e.requestsResetAt - nowMs);
  return null;
}

/** Maps the SDK's typed errors (parsed from `extensions.type` or the HTTP status) to the engine's vendor errors. */
export function mapLinearError(err: unknown): unknown {
  if (!loaded) return err;
  const { AuthenticationLinearError, ForbiddenLinearError, LinearError, RatelimitedLinearError } = loaded;
  if (err instanceof RatelimitedLinearError) return new VendorRateLimitedError(`Linear rate limit (${err.message})`, linearRetryAfterMs(err, Date.now()));
  if (err instanceof AuthenticationLinearError || err instanceof ForbiddenLinearError) {
    return new VendorAuthError(`Linear answered ${err.type} (${err.message}): use a personal API key (Authorization: <key>) that can read the selected teams`);
  }
  if (err instanceof LinearError && err.status === 429) return new VendorRateLimitedError('Linear rate limit (HTTP 429)', null);
  return err;
}

/** One GraphQL operation through the SDK's client, behind the connector's token bucket. */
export async function linearRequest<T>(ctx: Ctx, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const linear = await linearSdk();
  await ctx.acquire();
  try {
    const r = await linearClient(ctx, linear).client.rawRequest<T, Record<string, unknown>>(query, variables);
    if (r.data === undefined) throw new Error('Linear answered without data');
    return r.data;
  } catch (err) {
    throw mapLinearError(err);
  }
}

/** Linear's answer to an unknown (deleted) id: an InvalidInput error saying `Entity not found`. */
export function isLinearNotFound(err: unknown): boolean {
  return loaded !== undefined && err instanceof loaded.InvalidInputLinearError && /not found/i.test(err.message);
}
