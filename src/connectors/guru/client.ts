import { z } from 'zod';
import { joinUrl, type SourceContext, VendorAuthError, VendorHttpError, vendorFetch } from '../kit/index.ts';
import type { GuruCredentials, GuruSettings } from './schemas.ts';

export type GuruCtx = SourceContext<GuruCredentials, GuruSettings>;

export const GURU_API = 'https://api.getguru.com/api/v1';
const HINT = 'supply a valid Guru user email and user token (or collection id and collection token) from Settings → Apps & Integrations → API Access, or reconnect with OAuth';

function authorization(c: GuruCredentials): string {
  if (c.access_token) return `Bearer ${c.access_token}`;
  if (c.username && c.api_token) return `Basic ${Buffer.from(`${c.username}:${c.api_token}`).toString('base64')}`;
  throw new VendorAuthError('no Guru credentials: supply username and api_token, or connect with OAuth');
}

/** The `next-page` URL of Guru's `Link` header (`< https://…?token=… >; rel="next-page"`), or null on the last page. */
export function nextPage(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<\s*([^>]+?)\s*>\s*;\s*rel="?next-page"?/.exec(part);
    if (m?.[1]) return m[1];
  }
  return null;
}

/** One Guru API call (a path, or an absolute `next-page` URL): its JSON and the next page's URL. */
export async function guruPage<T>(ctx: GuruCtx, pathOrUrl: string, query?: Record<string, string | number | boolean | undefined>): Promise<{ body: T; next: string | null }> {
  const res = await vendorFetch(ctx, joinUrl(ctx.apiBaseUrl ?? GURU_API, pathOrUrl), {
    vendor: 'Guru',
    authHint: HINT,
    headers: { authorization: authorization(ctx.credentials) },
    ...(query ? { query } : {}),
    signal: ctx.signal,
  });
  const text = await res.text();
  try {
    return { body: JSON.parse(text) as T, next: nextPage(res.headers.get('link')) };
  } catch {
    throw new VendorHttpError(`Guru answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}

/** Every item of a paged Guru list, following `Link: rel="next-page"`. */
export async function guruAll<T>(ctx: GuruCtx, path: string, item: z.ZodType<T>): Promise<T[]> {
  const out: T[] = [];
  let url: string | null = path;
  while (url) {
    const page: { body: unknown; next: string | null } = await guruPage<unknown>(ctx, url);
    out.push(...z.array(item).parse(page.body));
    url = page.next;
  }
  return out;
}

const team = z.object({ id: z.string(), name: z.string().optional() });

/** `GET /teams`: the check Guru's docs give for credentials (a user or a collection token). */
export async function getTeams(ctx: GuruCtx): Promise<z.infer<typeof team>[]> {
  return z.array(team).parse((await guruPage<unknown>(ctx, '/teams')).body);
}
