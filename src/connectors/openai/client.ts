import { bearer, checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorRateLimitedError } from '../kit/index.ts';
import type { OpenAICredentials, OpenAISettings } from './schemas.ts';

export type OpenAICtx = SourceContext<OpenAICredentials, OpenAISettings>;

export const OPENAI_API = 'https://api.openai.com/v1';

/** What OpenAI's refusal of a non-admin key means, appended to the 401/403 message. */
export const ADMIN_KEY_HINT =
  "the connector needs an OpenAI Admin API key (sk-admin-…) from Organization settings → Admin keys (platform.openai.com/settings/organization/admin-keys); project and user keys (sk-proj-…, sk-…) cannot read the organization's usage, costs, audit logs or members";

export const apiBase = (ctx: Pick<OpenAICtx, 'apiBaseUrl'>): string => ctx.apiBaseUrl ?? OPENAI_API;

/** Query values; arrays are sent as repeated keys (`group_by=project_id&group_by=model`), OpenAPI's default form style. */
export type OpenAIQuery = Record<string, string | number | boolean | readonly string[] | undefined | null>;

function withQuery(url: string, query: OpenAIQuery): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) u.searchParams.append(k, item);
    else u.searchParams.set(k, String(v));
  }
  return u.toString();
}

/** OpenAI's `x-ratelimit-reset-requests` durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
export function parseResetDuration(value: string | null | undefined): number | null {
  if (!value) return null;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== value.trim()) return null;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (unit[p[2] ?? 's'] ?? 0), 0));
}

/** How long a 429 asks to wait: `retry-after-ms`, `Retry-After`, else when the request quota resets; null = back off. */
export function openaiRetryAfterMs(header: (name: string) => string | null): number | null {
  const ms = Number(header('retry-after-ms'));
  if (header('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  return parseRetryAfter(header('retry-after'), Date.now()) ?? parseResetDuration(header('x-ratelimit-reset-requests'));
}

/**
 * One OpenAI Admin API call: `Authorization: Bearer <admin key>` (plus `OpenAI-Organization` when set), through the
 * connector's rate-limited fetch; a 429 waits what OpenAI's headers say, 401/403 explain which key is needed.
 * Returns the JSON body and the `openai-organization` header (the organization the key belongs to).
 */
export async function openaiGet<T>(ctx: OpenAICtx, path: string, query: OpenAIQuery = {}): Promise<{ body: T; organization: string | null }> {
  const headers: Record<string, string> = { ...bearer(ctx.credentials.api_key), accept: 'application/json' };
  if (ctx.settings.organization) headers['openai-organization'] = ctx.settings.organization;
  const res = await ctx.fetch(withQuery(joinUrl(apiBase(ctx), path), query), { headers, signal: ctx.signal });
  if (res.status === 429) {
    await res.body?.cancel().catch(() => {});
    throw new VendorRateLimitedError('OpenAI rate limit (HTTP 429)', openaiRetryAfterMs((n) => res.headers.get(n)));
  }
  await checkResponse(res, { vendor: 'OpenAI', authHint: ADMIN_KEY_HINT });
  return { body: (await res.json()) as T, organization: res.headers.get('openai-organization') };
}
