import { z } from 'zod';
import { checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { MondayCredentials, MondaySettings } from './schemas.ts';

export type MondayCtx = SourceContext<MondayCredentials, MondaySettings>;

export const MONDAY_API = 'https://api.monday.com';
/** The API version every call pins (developer.monday.com/api-reference/docs/api-versioning). */
export const API_VERSION = '2025-04';
const HINT_TOKEN = "check the personal API token (Developers → My access tokens) of a user who can read the boards";
const HINT_OAUTH = 'reconnect with OAuth (scopes me:read boards:read updates:read users:read workspaces:read account:read)';

/** OAuth wins when both are present (what the latest (re)connect stored); both go in `Authorization` as they are. */
function token(c: MondayCredentials): string {
  const t = c.access_token ?? c.api_token;
  if (!t) throw new VendorAuthError('no monday.com credentials: supply credentials.api_token or connect with OAuth');
  return t;
}

const gqlError = z.object({
  message: z.string().default(''),
  extensions: z.object({ code: z.string().optional(), retry_in_seconds: z.number().optional(), status_code: z.number().optional() }).passthrough().optional(),
});
const answer = z.object({
  data: z.unknown().optional(),
  errors: z.array(gqlError).optional(),
  /** The pre-2024 error shape (`ComplexityException`, `Not Authenticated`). */
  error_code: z.string().optional(),
  error_message: z.string().optional(),
  status_code: z.number().optional(),
});

const LIMIT_CODES = new Set(['COMPLEXITY_BUDGET_EXHAUSTED', 'ComplexityException', 'RATE_LIMIT_EXCEEDED', 'Rate Limit Exceeded', 'DAILY_LIMIT_EXCEEDED', 'maxConcurrencyExceeded', 'IP_RATE_LIMIT_EXCEEDED']);
const AUTH_CODES = new Set(['UNAUTHENTICATED', 'Unauthorized', 'USER_UNAUTHORIZED', 'UserUnauthorizedException']);

/**
 * monday's errors, which arrive as HTTP 200 with an `errors` array (application errors), as HTTP 429 (limits, with
 * `retry_in_seconds` in the body and/or `Retry-After`) or 401: limits → VendorRateLimitedError, rejected credentials →
 * VendorAuthError, anything else → VendorHttpError (5xx-like when monday says INTERNAL_SERVER_ERROR). Null when none,
 * or when beside data only fields the user may not read failed.
 */
export function classifyErrors(body: z.infer<typeof answer>, retryAfterMs: number | null, hint: string): Error | null {
  const errors = body.errors ?? (body.error_code || body.error_message ? [{ message: body.error_message ?? '', extensions: { code: body.error_code, status_code: body.status_code } }] : []);
  if (errors.length === 0) return null;
  const limited = errors.find((e) => LIMIT_CODES.has(e.extensions?.code ?? '') || e.extensions?.status_code === 429);
  if (limited) {
    const secs = limited.extensions?.retry_in_seconds;
    const fromMessage = /reset in (\d+) seconds?/.exec(limited.message)?.[1];
    const ms = typeof secs === 'number' ? secs * 1000 : fromMessage ? Number(fromMessage) * 1000 : retryAfterMs;
    return new VendorRateLimitedError(`monday.com limit: ${limited.extensions?.code ?? limited.message}`, ms);
  }
  // Without data, an authorization failure is the credentials' (a board the user lost access to is simply not listed).
  const denied = errors.find((e) => AUTH_CODES.has(e.extensions?.code ?? '') || e.extensions?.status_code === 401 || /not authenticated/i.test(e.message));
  if (denied && !body.data) return new VendorAuthError(`monday.com answered ${denied.extensions?.status_code ?? 401} (${denied.message}${denied.extensions?.code ? `, ${denied.extensions.code}` : ''}): ${hint}`);
  // Beside data, only fields the user may not read failed: the partial answer is what the user can see.
  if (body.data && errors.every((e) => AUTH_CODES.has(e.extensions?.code ?? ''))) return null;
  const first = errors[0];
  const internal = errors.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR' || (e.extensions?.status_code ?? 0) >= 500);
  return new VendorHttpError(`monday.com answered GraphQL errors: ${errors.map((e) => `${e.message}${e.extensions?.code ? ` (${e.extensions.code})` : ''}`).join('; ').slice(0, 300) || first?.message}`, internal ? 500 : 400);
}

/** One GraphQL call (POST /v2 with the pinned API-Version), rate-limited, classified; answers `data`. */
export async function mondayQuery<T>(ctx: MondayCtx, query: string, variables: Record<string, unknown> = {}, schema: z.ZodType<T>): Promise<T> {
  const hint = ctx.credentials.access_token ? HINT_OAUTH : HINT_TOKEN;
  const res = await ctx.fetch(joinUrl(ctx.apiBaseUrl ?? MONDAY_API, '/v2'), {
    method: 'POST',
    headers: { authorization: token(ctx.credentials), 'api-version': API_VERSION, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: ctx.signal,
  });
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), Date.now());
  if (res.status === 429 || res.status === 401) {
    // The body says which limit and how long (retry_in_seconds); the kit's generic answer would lose that.
    const text = await res.text().catch(() => '');
    let parsed: z.infer<typeof answer> | null = null;
    try {
      parsed = answer.parse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    const err = parsed ? classifyErrors(parsed, retryAfterMs, hint) : null;
    if (err instanceof VendorRateLimitedError || err instanceof VendorAuthError) throw err;
    if (res.status === 429) throw new VendorRateLimitedError('monday.com rate limit (HTTP 429)', retryAfterMs);
    throw new VendorAuthError(`monday.com answered 401${text ? ` (${text.slice(0, 200)})` : ''}: ${hint}`);
  }
  await checkResponse(res, { vendor: 'monday.com', authHint: hint });
  const text = await res.text();
  let body: z.infer<typeof answer>;
  try {
    body = answer.parse(JSON.parse(text));
  } catch {
    throw new VendorHttpError(`monday.com answered HTTP ${res.status} with a body that is not GraphQL JSON: ${text.slice(0, 120)}`, res.status);
  }
  const err = classifyErrors(body, retryAfterMs, hint);
  if (err) throw err;
  return schema.parse(body.data);
}

export const meAnswer = z.object({
  me: z.object({ id: z.coerce.string(), name: z.string().nullish(), email: z.string().nullish(), account: z.object({ id: z.coerce.string(), name: z.string().nullish(), slug: z.string().nullish() }) }),
});
export type MondayMe = z.infer<typeof meAnswer>['me'];

export async function getMe(ctx: MondayCtx): Promise<MondayMe> {
  return (await mondayQuery(ctx, 'query { me { id name email account { id name slug } } }', {}, meAnswer)).me;
}
