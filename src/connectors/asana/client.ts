import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, vendorJson } from '../kit/index.ts';
import type { AsanaCredentials, AsanaSettings } from './schemas.ts';

export type AsanaCtx = SourceContext<AsanaCredentials, AsanaSettings>;

export const ASANA_API = 'https://app.asana.com/api/1.0';
const HINT_PAT = 'check the personal access token (Asana developer console → Personal access tokens) and that its user is still active';
const HINT_OAUTH = 'reconnect with OAuth (the app needs read access to workspaces, projects, tasks and stories)';

/** OAuth wins when both are present: the OAuth token is what the latest (re)connect stored. */
const token = (c: AsanaCredentials): string => {
  const t = c.access_token ?? c.personal_access_token;
  if (!t) throw new VendorAuthError('no Asana credentials: supply credentials.personal_access_token or connect with OAuth');
  return t;
};

/** One Asana call: bearer-authorized, rate-limited, classified (Asana answers `{ errors: [{ message }] }`). */
export function asanaJson<T>(ctx: AsanaCtx, path: string, query: Record<string, string | number | undefined | null> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? ASANA_API, path), {
    vendor: 'Asana',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_PAT,
    headers: bearer(token(ctx.credentials)),
    query,
    signal: ctx.signal,
  });
}

const listPage = z.object({ data: z.array(z.unknown()), next_page: z.object({ offset: z.string() }).nullable().optional() });

/** One page of an Asana list: its items and the `next_page.offset` to ask next (null after the last). */
export async function asanaPage(ctx: AsanaCtx, path: string, query: Record<string, string | number | undefined | null>): Promise<{ data: unknown[]; offset: string | null }> {
  const r = listPage.parse(await asanaJson<unknown>(ctx, path, query));
  return { data: r.data, offset: r.next_page?.offset ?? null };
}

/** Every item of a (short) Asana list, following `next_page.offset`. */
export async function asanaAll(ctx: AsanaCtx, path: string, query: Record<string, string | number | undefined | null>): Promise<unknown[]> {
  const out: unknown[] = [];
  let offset: string | null = null;
  do {
    const page: { data: unknown[]; offset: string | null } = await asanaPage(ctx, path, { ...query, limit: 100, offset });
    out.push(...page.data);
    offset = page.offset;
  } while (offset);
  return out;
}

const me = z.object({
  data: z.object({ gid: z.string(), name: z.string().nullable().optional(), email: z.string().nullable().optional(), workspaces: z.array(z.object({ gid: z.string(), name: z.string().nullable().optional() })).optional() }),
});
export type AsanaMe = z.infer<typeof me>['data'];

/** The token's user (`GET /users/me`): the validation probe. */
export async function getMe(ctx: AsanaCtx): Promise<AsanaMe> {
  return me.parse(await asanaJson<unknown>(ctx, '/users/me', { opt_fields: 'name,email,workspaces.name' })).data;
}
