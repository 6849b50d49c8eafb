import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, type VendorRequest, vendorFetch, vendorJson } from '../kit/index.ts';
import type { CodaCredentials, CodaSettings } from './schemas.ts';

export type CodaCtx = SourceContext<CodaCredentials, CodaSettings>;

export const CODA_API = 'https://coda.io/apis/v1';
const HINT = 'supply a valid Coda API token (coda.io/account → API settings) that may read the docs';

/** One Coda API call (a path, or an absolute `nextPageLink`): bearer token, rate-limited, classified. */
export function codaJson<T>(ctx: CodaCtx, pathOrUrl: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? CODA_API, pathOrUrl), {
    ...req,
    vendor: 'Coda',
    authHint: HINT,
    headers: { ...bearer(ctx.credentials.api_token), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

/**
 * An export's `downloadLink`: a short-lived signed URL on Coda's file host. It carries its own authorization, so the
 * API token is not sent along (a second credential would be refused, and the host is not Coda's API).
 */
export async function download(ctx: CodaCtx, link: string): Promise<string> {
  const res = await vendorFetch(ctx, link, { vendor: 'Coda', headers: { accept: 'text/markdown, text/plain, */*' }, signal: ctx.signal, forbiddenIsAuth: false });
  return res.text();
}

const whoami = z.object({
  name: z.string().optional(),
  loginId: z.string().optional(),
  tokenName: z.string().optional(),
  workspace: z.object({ id: z.string(), name: z.string().optional() }).optional(),
});

/** `GET /whoami`: the user the token belongs to. */
export async function getWhoami(ctx: CodaCtx): Promise<z.infer<typeof whoami>> {
  return whoami.parse(await codaJson<unknown>(ctx, '/whoami'));
}

/** Every item of a Coda list (`items`, `nextPageToken`), following the token. */
export async function listAll<T>(ctx: CodaCtx, path: string, item: z.ZodType<T>, query: Record<string, string | number | boolean | undefined> = {}): Promise<T[]> {
  const page = z.object({ items: z.array(item), nextPageToken: z.string().nullable().optional() });
  const out: T[] = [];
  let token: string | undefined;
  do {
    const r = page.parse(await codaJson<unknown>(ctx, path, { query: { ...query, pageToken: token } }));
    out.push(...r.items);
    token = r.nextPageToken ?? undefined;
  } while (token);
  return out;
}
