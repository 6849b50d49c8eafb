import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { authenticateKey, can, PERMISSIONS, type Permission, type Principal } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { authenticateAccessToken, isAccessToken } from '../auth/oauth-server/index.ts';
import { AppError, Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import type { AppDeps } from './deps.ts';

/** Where events about no known tenant (a throttled client) are audited: the bootstrap admin's tenant. */
const DEFAULT_TENANT = 'default';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a route needs; `public` routes need no credential. Every route must declare one. */
    permission?: Permission | 'public' | 'authenticated';
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Reads `Authorization: Bearer <key>`; returns undefined when the header is absent. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? '';
}

/**
 * Runs one credential check for `client` under the failed-attempt limit per client address: while the client is over
 * it the check does not even run (429 with Retry-After); a check that answers null counts as a failure, and the
 * failure that starts a block is logged and audited. API keys and the first-run setup code both go through it.
 */
export async function underFailureThrottle<T>(deps: AppDeps, client: string, check: () => Promise<T | null>): Promise<T | null> {
  const throttle = deps.authFailures;
  const now = deps.clock.now().getTime();
  const blocked = throttle?.blockedFor(client, now) ?? 0;
  if (blocked > 0) throw Errors.authThrottled(blocked);
  const passed = await check();
  if (passed === null && throttle) {
    const { retryAfter, started } = throttle.fail(client, now);
    if (started) {
      deps.log.warn({ client, retryAfter }, 'too many failed authentication attempts: client throttled');
      await recordAudit(deps.db, {
        tenantId: DEFAULT_TENANT,
        action: Ops.authThrottled,
        at: new Date(now),
        details: { client, retry_after_seconds: retryAfter, limit_per_minute: deps.config.authFailuresPerMinute },
      }).catch((err: unknown) => deps.log.error({ err }, 'could not record the auth throttle audit event'));
    }
  }
  return passed;
}

/**
 * A presented bearer's principal, or null, under the failed-attempt limit (`underFailureThrottle`): an API key, or an
 * OAuth access token (`mcp_at_…`) issued to an MCP client, which stands for the person who consented.
 */
export async function authenticateBearer(deps: AppDeps, client: string, token: string): Promise<Principal | null> {
  // A known access token that expired or was revoked is refused without counting as a failed attempt: clients
  // present expired tokens routinely before refreshing. Unknown bearers count.
  const found = await underFailureThrottle(deps, client, async () => {
    if (!token) return null;
    if (deps.localCliKey && isLocalCliKey(token, deps.localCliKey)) return { principal: localCliPrincipal() };
    if (isAccessToken(token)) {
      const access = await authenticateAccessToken(deps.db, token, deps.clock.now());
      return access.known ? access : null;
    }
    const principal = await authenticateKey(deps.db, token, { clock: deps.clock, log: deps.log });
    return principal ? { principal } : null;
  });
  return found?.principal ?? null;
}

function isLocalCliKey(token: string, key: string): boolean {
  const a = Buffer.from(token);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The CLI of the user who runs this service, on the same machine (AppDeps.localCliKey): audited as `local-cli`. */
function localCliPrincipal(): Principal {
  return { kind: 'api_key', id: 'local-cli', tenantId: DEFAULT_TENANT, userId: 'local-cli', permissions: new Set(PERMISSIONS), email: null };
}

/** Where an OAuth access token is accepted: the resource it was issued for, the MCP endpoint (and its REST wrappers). */
const OAUTH_RESOURCE_PATH = '/v1/expose/mcp';
function isOAuthResource(url: string): boolean {
  return url === OAUTH_RESOURCE_PATH || url.startsWith(`${OAUTH_RESOURCE_PATH}/`) || url.startsWith(`${OAUTH_RESOURCE_PATH}?`);
}

export async function resolvePrincipal(deps: AppDeps, request: FastifyRequest): Promise<Principal | null> {
  const token = bearerToken(request);
  if (token !== undefined) {
    // A presented but invalid bearer is a 401 even if a session cookie is also present.
    if (isAccessToken(token) && !isOAuthResource(request.url)) {
      throw Errors.unauthenticated(`an OAuth access token is valid only for the MCP endpoint (${OAUTH_RESOURCE_PATH}): other routes take an API key`);
    }
    return authenticateBearer(deps, request.ip, token);
  }
  for (const authenticate of deps.authenticators ?? []) {
    const p = await authenticate(request);
    if (p) {
      assertSameOrigin(deps, request);
      return p;
    }
  }
  return null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for credentials the browser attaches by itself (the SSO session cookie):
 * a request that changes state must come from the console's own origin. SameSite=Lax keeps the cookie off
 * cross-site requests, but a sibling subdomain or another port of the same host is the same *site* and gets
 * it; so `Sec-Fetch-Site` must be `same-origin` (or `none`: typed by the user), and an `Origin` header, when
 * sent, must be the public URL's or the request's own. Clients that send neither are not browsers.
 */
export function assertSameOrigin(deps: Pick<AppDeps, 'config'>, request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const own = [new URL(deps.config.publicUrl).origin, `${request.protocol}://${request.headers.host ?? ''}`];
  const refused = (site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && !own.includes(origin));
  if (refused) {
    throw new AppError('permission_denied', 403, `the session cookie is accepted only from this service's own origin (request from ${origin ?? `a ${site} page`}): other clients send an API key`, {
      details: { reason: 'cross_origin' },
    });
  }
}

/** The route-level check: 401 without a valid credential, 403 without the permission, 429 over the rate. */
export async function authorize(deps: AppDeps, request: FastifyRequest): Promise<void> {
  const needed = request.routeOptions.config.permission;
  if (needed === 'public') return;
  if (needed === undefined) throw Errors.internal(new Error(`route ${request.routeOptions.url} declares no permission`));
  const principal = await resolvePrincipal(deps, request);
  if (!principal) throw Errors.unauthenticated();
  request.principal = withActAs(principal, request);
  const wait = deps.rateLimiter.take(`${principal.kind}:${principal.id}`, deps.clock.now().getTime());
  if (wait > 0) throw Errors.rateLimited(wait);
  if (needed !== 'authenticated' && !can(principal, needed)) throw Errors.forbidden(needed);
}

/** The person the request names with `X-Atrium-Act-As`, carried with its principal (checked where documents are read). */
export function withActAs(principal: Principal, request: FastifyRequest): Principal {
  const header = request.headers['x-atrium-act-as'];
  if (header === undefined) return principal;
  if (Array.isArray(header)) throw Errors.validation('send one X-Atrium-Act-As header');
  return { ...principal, actAs: header };
}

/** The principal of an authorized request; routes call this instead of reading the field. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw Errors.unauthenticated();
  return request.principal;
}
