import { bearer, joinUrl, type SourceContext, VendorAuthError, VendorHttpError, vendorJson } from '../kit/index.ts';
import type { TeamsCredentials, TeamsSettings } from './schemas.ts';

type Ctx = SourceContext<TeamsCredentials, TeamsSettings>;

export const GRAPH_URL = 'https://graph.microsoft.com';
const AUTH_HINT = 'reconnect with OAuth, granting Team.ReadBasic.All, Channel.ReadBasic.All and ChannelMessage.Read.All';

/** `<graph host>/v1.0`: the national cloud's host from settings, else the public Graph. */
export const graphApiBase = (settings: TeamsSettings): string => `${settings.graph_url ?? GRAPH_URL}/v1.0`;

/** One Graph collection page: `value` and either `@odata.nextLink` (more pages) or `@odata.deltaLink` (round complete). */
export interface GraphPage<T> {
  readonly value: T[];
  readonly '@odata.nextLink'?: string;
  readonly '@odata.deltaLink'?: string;
}

/**
 * Query strings as Graph documents them (`$top=50&$expand=replies`): the `$` kept literal, values encoded.
 * Undefined values are left out.
 */
export function graphQuery(query: Record<string, string | number | undefined>): string {
  const parts = Object.entries(query)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** A path segment for an id (channel ids look like `19:…@thread.tacv2`). */
export const seg = (id: string) => encodeURIComponent(id);

/**
 * GET a Graph path (relative to the API base) or a `@odata.nextLink` / `@odata.deltaLink` Graph handed out.
 * Links are followed only on the API base's origin: the bearer token never goes to a host a response named.
 */
export async function graphGet<T>(ctx: Ctx, pathOrLink: string, opts: { forbiddenIsAuth?: boolean } = {}): Promise<T> {
  const token = ctx.credentials.access_token;
  if (!token) throw new VendorAuthError('no Microsoft Graph token: connect the connector with OAuth');
  const base = ctx.apiBaseUrl ?? graphApiBase(ctx.settings);
  let url: string;
  if (/^https?:\/\//i.test(pathOrLink)) {
    if (new URL(pathOrLink).origin !== new URL(base).origin) throw new VendorHttpError(`Microsoft Graph handed out a link to another host (${new URL(pathOrLink).origin}): not followed`, 502);
    url = pathOrLink;
  } else url = joinUrl(base, pathOrLink);
  return vendorJson<T>(ctx, url, { vendor: 'Microsoft Graph', authHint: AUTH_HINT, headers: bearer(token), ...opts });
}

/** Every page of a (small) Graph collection: teams, channels. */
export async function graphAll<T>(ctx: Ctx, path: string): Promise<T[]> {
  const out: T[] = [];
  let next: string | undefined = path;
  while (next) {
    const page: GraphPage<T> = await graphGet<GraphPage<T>>(ctx, next);
    out.push(...page.value);
    next = page['@odata.nextLink'];
  }
  return out;
}

/** A delta link Graph no longer honours (410 Gone, or 400 `syncStateNotFound` / `resyncRequired`): start a new round. */
export function isExpiredDelta(err: unknown): boolean {
  return err instanceof VendorHttpError && (err.status === 410 || (err.status === 400 && /syncStateNotFound|resyncRequired/i.test(err.message)));
}

/** The channel (or team) no longer exists or is no longer readable through this path. */
export const isNotFound = (err: unknown): boolean => err instanceof VendorHttpError && err.status === 404;
