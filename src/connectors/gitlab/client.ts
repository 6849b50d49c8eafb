import { joinUrl, type SourceContext, VendorHttpError, vendorFetch, vendorJson } from '../kit/index.ts';
import type { GitLabCredentials, GitLabSettings } from './schemas.ts';

type Ctx = SourceContext<GitLabCredentials, GitLabSettings>;

export const VENDOR = 'GitLab';
const AUTH_HINT = 'use a personal, project or group access token (or OAuth) with scopes read_api and read_repository that can read the selected projects';

/** `<base_url>/api/v4`, or what ATRIUM_CONNECTOR_API_URLS says (a proxy, a test's fake). */
export function apiBase(ctx: Pick<Ctx, 'apiBaseUrl' | 'settings'>): string {
  return ctx.apiBaseUrl ?? `${ctx.settings.base_url}/api/v4`;
}

/** OAuth tokens go as `Authorization: Bearer`, access tokens as `PRIVATE-TOKEN` (GitLab takes both forms). */
export function authHeaders(c: GitLabCredentials): Record<string, string> {
  if (c.access_token) return { authorization: `Bearer ${c.access_token}` };
  if (c.private_token) return { 'private-token': c.private_token };
  return {};
}

/** A project, group, file path or wiki slug as one URL segment (`group/project` → `group%2Fproject`). */
export const seg = (v: string | number) => encodeURIComponent(String(v));

type Query = Record<string, string | number | boolean | undefined | null>;

/** GET a JSON resource of the REST API v4. */
export function glGet<T>(ctx: Ctx, path: string, query?: Query): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), path), { vendor: VENDOR, authHint: AUTH_HINT, headers: authHeaders(ctx.credentials), query });
}

/** GET that answers null for 404 (GitLab's answer for a resource that is gone or that the token cannot see). */
export async function glGetOrNull<T>(ctx: Ctx, path: string, query?: Query): Promise<T | null> {
  try {
    return await glGet<T>(ctx, path, query);
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The next page of a list answer: the `Link: <…>; rel="next"` URL (keyset and offset pagination both send it), else
 * `X-Next-Page` (empty on the last page) applied to the request's URL. GitLab leaves out `X-Total`/`rel="last"` past
 * 10,000 rows, so neither is relied on.
 */
export function nextPageUrl(requestUrl: string, headers: Headers): string | null {
  const link = headers.get('link');
  if (link) {
    for (const part of link.split(',')) {
      const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
      if (m?.[1]) return m[1];
    }
  }
  const next = headers.get('x-next-page')?.trim();
  if (!next) return null;
  const u = new URL(requestUrl);
  u.searchParams.set('page', next);
  return u.toString();
}

/**
 * One page of a list endpoint: its items and the URL of the next page (null after the last). `optional`: a project
 * feature that is turned off or not readable by this token (403/404 on that project's endpoint) answers null instead
 * of failing (a revoked token answers 401 everywhere, so it still fails).
 */
export async function glPage<T>(ctx: Ctx, url: string, opts: { optional?: boolean } = {}): Promise<{ items: T[]; next: string | null } | null> {
  let res: Response;
  try {
    res = await vendorFetch(ctx, url, { vendor: VENDOR, authHint: AUTH_HINT, headers: authHeaders(ctx.credentials), forbiddenIsAuth: !opts.optional });
  } catch (err) {
    if (opts.optional && err instanceof VendorHttpError && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
  const items = (await res.json()) as T[];
  if (!Array.isArray(items)) throw new VendorHttpError(`${VENDOR} answered a list request with a non-list body`, res.status);
  return { items, next: nextPageUrl(url, res.headers) };
}

/** GET of a project feature's JSON (wiki, branch): null when GitLab answers 403/404 (turned off, empty, not readable). */
export async function glGetOptional<T>(ctx: Ctx, path: string, query?: Query): Promise<T | null> {
  try {
    return await vendorJson<T>(ctx, joinUrl(apiBase(ctx), path), { vendor: VENDOR, authHint: AUTH_HINT, headers: authHeaders(ctx.credentials), query, forbiddenIsAuth: false });
  } catch (err) {
    if (err instanceof VendorHttpError && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
}

/** The first-page URL of a list endpoint. */
export function listUrl(ctx: Pick<Ctx, 'apiBaseUrl' | 'settings'>, path: string, query: Query): string {
  const u = new URL(joinUrl(apiBase(ctx), path));
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
  return u.toString();
}

/** A file's raw bytes on `ref`, or null when GitLab no longer has it (or it is larger than `maxBytes`). */
export async function rawFile(ctx: Ctx, projectId: number, path: string, ref: string, maxBytes: number): Promise<{ bytes: Uint8Array; blobId: string | null; lastCommitId: string | null } | 'too_large' | null> {
  let res: Response;
  try {
    res = await vendorFetch(ctx, joinUrl(apiBase(ctx), `projects/${projectId}/repository/files/${seg(path)}/raw`), {
      vendor: VENDOR,
      authHint: AUTH_HINT,
      headers: { ...authHeaders(ctx.credentials), accept: '*/*' },
      query: { ref },
    });
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
  const declared = Number(res.headers.get('x-gitlab-size') ?? res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    return 'too_large';
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > maxBytes) return 'too_large';
  return { bytes, blobId: res.headers.get('x-gitlab-blob-id'), lastCommitId: res.headers.get('x-gitlab-last-commit-id') };
}
