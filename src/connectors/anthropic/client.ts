import { joinUrl, type SourceContext, vendorJson } from '../kit/index.ts';
import type { AnthropicCredentials, AnthropicSettings } from './schemas.ts';

type Ctx = SourceContext<AnthropicCredentials, AnthropicSettings>;

export const VENDOR = 'Anthropic';
export const ADMIN_KEY_NEEDED = 'an Anthropic Admin API key (sk-ant-admin…) from Console → Settings → Admin keys';
const AUTH_HINT = `use ${ADMIN_KEY_NEEDED}; a normal API key cannot read the Admin API`;
/** The API version every request names (Anthropic's versioning: a required `anthropic-version` header). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `https://api.anthropic.com`, or what ATRIUM_CONNECTOR_API_URLS says (a proxy, a test's fake). */
export function apiBase(ctx: Pick<Ctx, 'apiBaseUrl'>): string {
  return ctx.apiBaseUrl ?? 'https://api.anthropic.com';
}

/** Query values; an array is sent as repeated `name[]=` parameters (the Admin API's `group_by[]`). */
export type Query = Record<string, string | number | boolean | readonly string[] | null | undefined>;

export function adminUrl(ctx: Pick<Ctx, 'apiBaseUrl'>, path: string, query: Query = {}): string {
  const u = new URL(joinUrl(apiBase(ctx), path));
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) u.searchParams.append(`${k}[]`, item);
    else u.searchParams.set(k, String(v));
  }
  return u.toString();
}

/** GET of an Admin API resource (`/v1/organizations/...`) with the admin key in `x-api-key`. */
export function adminGet<T>(ctx: Ctx, path: string, query: Query = {}): Promise<T> {
  return vendorJson<T>(ctx, adminUrl(ctx, path, query), {
    vendor: VENDOR,
    authHint: AUTH_HINT,
    headers: { 'x-api-key': ctx.credentials.api_key, 'anthropic-version': ANTHROPIC_VERSION },
  });
}

/** The Admin API's list envelope (users, workspaces, API keys, invites): cursor paging by `after_id` = `last_id`. */
export interface AdminList<T> {
  readonly data: T[];
  readonly has_more: boolean;
  readonly first_id: string | null;
  readonly last_id: string | null;
}

/** The usage and cost reports' envelope: time buckets, paged by `page` = `next_page`. */
export interface Report<R> {
  readonly data: { readonly starting_at: string; readonly ending_at: string; readonly results: R[] }[];
  readonly has_more: boolean;
  readonly next_page: string | null;
}

/** Whether the key has the Admin key's prefix (`sk-ant-admin01-…`); normal API keys are `sk-ant-api03-…`. */
export function looksLikeAdminKey(key: string): boolean {
  return key.startsWith('sk-ant-admin');
}
