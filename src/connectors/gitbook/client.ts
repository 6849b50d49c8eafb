import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, type VendorRequest, VendorAuthError, vendorJson } from '../kit/index.ts';
import type { GitBookCredentials, GitBookSettings } from './schemas.ts';

export type GitBookCtx = SourceContext<GitBookCredentials, GitBookSettings>;

export const GITBOOK_API = 'https://api.gitbook.com/v1';
const HINT = 'supply a valid GitBook personal access token (Account settings → Developer) or reconnect with OAuth (scopes user:read organization:read space:read)';

/** One GitBook API call: bearer token, rate-limited, classified (429 waits until `X-RateLimit-Reset`). */
export function gitbookJson<T>(ctx: GitBookCtx, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  const token = ctx.credentials.access_token;
  if (!token) throw new VendorAuthError('no GitBook token: connect with OAuth or supply access_token');
  return vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? GITBOOK_API, path), {
    ...req,
    vendor: 'GitBook',
    authHint: HINT,
    headers: { ...bearer(token), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

/** One page of a GitBook list (`items`, `next.page`). */
export async function listPage<T>(ctx: GitBookCtx, path: string, item: z.ZodType<T>, page: string | null): Promise<{ items: T[]; next: string | null }> {
  const schema = z.object({ items: z.array(item), next: z.object({ page: z.string() }).nullish() });
  const r = schema.parse(await gitbookJson<unknown>(ctx, path, { query: { page: page ?? undefined, limit: 100 } }));
  return { items: r.items, next: r.next?.page ?? null };
}

const user = z.object({ id: z.string(), displayName: z.string().optional(), email: z.string().optional() });

/** `GET /user`: who the token belongs to. */
export async function getUser(ctx: GitBookCtx): Promise<z.infer<typeof user>> {
  return user.parse(await gitbookJson<unknown>(ctx, '/user'));
}
