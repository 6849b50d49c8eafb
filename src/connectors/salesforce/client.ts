import { z } from 'zod';
import { bearer, joinUrl, parseRetryAfter, rateLimitFromResponse, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { SalesforceCredentials, SalesforceSettings } from './schemas.ts';

export type SalesforceCtx = SourceContext<SalesforceCredentials, SalesforceSettings>;

const AUTH_HINT = 'reconnect with OAuth (scopes api refresh_token) or supply a current access_token with its instance_url';
/** The 24-hour API allocation is spent: it refills as the rolling window moves, so wait an hour rather than back off. */
export const DAILY_LIMIT_WAIT_MS = 60 * 60_000;
/** Too many long-running requests at once (ConcurrentRequests): a short wait. */
export const CONCURRENT_LIMIT_WAIT_MS = 60_000;

/** A Salesforce error other than credentials or limits, with its `errorCode` (INVALID_TYPE, INVALID_REPLICATION_DATE, …). */
export class SalesforceApiError extends VendorHttpError {
  constructor(
    message: string,
    status: number,
    readonly errorCode: string | null,
  ) {
    super(message, status);
  }
}

const errorArray = z.array(z.object({ message: z.string().optional(), errorCode: z.string().optional() }));

/** Salesforce answers errors as a JSON array `[{message, errorCode, fields?}]`; the first entry, if the body is one. */
export function salesforceError(text: string): { message: string; errorCode: string | null } | null {
  try {
    const parsed = errorArray.safeParse(JSON.parse(text));
    const first = parsed.success ? parsed.data[0] : undefined;
    return first ? { message: first.message ?? '', errorCode: first.errorCode ?? null } : null;
  } catch {
    return null;
  }
}

/**
 * Classifies a Salesforce error answer: REQUEST_LIMIT_EXCEEDED (403: the org's 24-hour allocation or its concurrent
 * long-running requests) is a rate limit, not bad credentials; 401 INVALID_SESSION_ID and other 401/403 reject the
 * credentials; 429 (Retry-After) is a rate limit; anything else is a SalesforceApiError carrying the errorCode.
 */
export function classifyError(status: number, text: string, header: (name: string) => string | null): Error {
  const e = salesforceError(text);
  const detail = e ? `${e.errorCode ?? 'error'}: ${e.message}` : text.replace(/\s+/g, ' ').trim().slice(0, 300);
  if (e?.errorCode === 'REQUEST_LIMIT_EXCEEDED') {
    // Salesforce sends no Retry-After here; one from a proxy in front of it is honoured.
    const told = parseRetryAfter(header('retry-after'), Date.now());
    const daily = !/concurrent/i.test(e.message);
    return new VendorRateLimitedError(`Salesforce API limit reached (${detail})`, told ?? (daily ? DAILY_LIMIT_WAIT_MS : CONCURRENT_LIMIT_WAIT_MS));
  }
  const limited = rateLimitFromResponse(status, header);
  if (limited) return new VendorRateLimitedError(`Salesforce rate limit (HTTP ${status})`, limited.retryAfterMs);
  if (status === 401 || status === 403) return new VendorAuthError(`Salesforce answered ${status}${detail ? ` (${detail})` : ''}: ${AUTH_HINT}`);
  return new SalesforceApiError(`Salesforce answered HTTP ${status}${detail ? `: ${detail}` : ''}`, status, e?.errorCode ?? null);
}

/** Where API calls go: `ATRIUM_CONNECTOR_API_URLS.salesforce` (proxies, tests), else the org's instance URL. */
export function apiBase(ctx: SalesforceCtx): string {
  const base = ctx.apiBaseUrl ?? ctx.credentials.instance_url;
  if (!base) throw new VendorAuthError('no Salesforce instance URL: connect with OAuth (its token answer names it) or supply credentials.instance_url');
  return base;
}

/** Where record links point: the org's instance (the API base when only a proxy is known). */
export const instanceUrl = (ctx: SalesforceCtx): string => (ctx.credentials.instance_url ?? apiBase(ctx)).replace(/\/+$/, '');

export interface SalesforceAnswer<T> {
  readonly body: T;
  /** Salesforce's clock (the HTTP Date header): getDeleted windows and cursors are in server time. */
  readonly serverTime: string | null;
}

/** One authorized, rate-limited GET against the org, classified like `classifyError`. */
export async function salesforceGet<T>(ctx: SalesforceCtx, path: string, query?: Record<string, string>): Promise<SalesforceAnswer<T>> {
  const token = ctx.credentials.access_token;
  if (!token) throw new VendorAuthError('no Salesforce credentials: connect with OAuth or supply credentials.access_token and instance_url');
  const url = new URL(joinUrl(apiBase(ctx), path));
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  const res = await ctx.fetch(url.toString(), { headers: { ...bearer(token), accept: 'application/json' }, signal: ctx.signal });
  if (!res.ok) throw classifyError(res.status, await res.text().catch(() => ''), (n) => res.headers.get(n));
  const date = res.headers.get('date');
  const at = date ? Date.parse(date) : Number.NaN;
  const text = await res.text();
  try {
    return { body: (text ? JSON.parse(text) : undefined) as T, serverTime: Number.isNaN(at) ? null : new Date(at).toISOString() };
  } catch {
    throw new VendorHttpError(`Salesforce answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}

export const userInfo = z.object({
  user_id: z.string(),
  organization_id: z.string().optional(),
  preferred_username: z.string().optional(),
  email: z.string().optional(),
  name: z.string().optional(),
});

/** `GET /services/oauth2/userinfo` on the instance: who the token acts as, and Salesforce's clock. */
export async function getUserInfo(ctx: SalesforceCtx): Promise<{ user: z.infer<typeof userInfo>; serverTime: string | null }> {
  const r = await salesforceGet<unknown>(ctx, '/services/oauth2/userinfo');
  return { user: userInfo.parse(r.body), serverTime: r.serverTime };
}

export const queryResult = z.object({
  totalSize: z.number().optional(),
  done: z.boolean(),
  nextRecordsUrl: z.string().optional(),
  records: z.array(z.record(z.string(), z.unknown())),
});
export type QueryResult = z.infer<typeof queryResult>;

const dataPath = (ctx: SalesforceCtx, rest: string) => `/services/data/v${ctx.settings.api_version}/${rest}`;

/** `GET /services/data/vXX.X/query?q=<SOQL>`, or the next batch through a query locator (`nextRecordsUrl`). */
export async function query(ctx: SalesforceCtx, soqlOrNext: { soql: string } | { next: string }): Promise<QueryResult> {
  const r = 'soql' in soqlOrNext ? await salesforceGet<unknown>(ctx, dataPath(ctx, 'query'), { q: soqlOrNext.soql }) : await salesforceGet<unknown>(ctx, soqlOrNext.next);
  return queryResult.parse(r.body);
}

/** Every record of a query (queryMore through `nextRecordsUrl`): for small result sets read inside one page. */
export async function queryAll(ctx: SalesforceCtx, soql: string): Promise<QueryResult['records']> {
  const out: QueryResult['records'] = [];
  let r = await query(ctx, { soql });
  out.push(...r.records);
  while (!r.done && r.nextRecordsUrl) {
    r = await query(ctx, { next: r.nextRecordsUrl });
    out.push(...r.records);
  }
  return out;
}

const deletedAnswer = z.object({
  deletedRecords: z.array(z.object({ id: z.string(), deletedDate: z.string().optional() })).default([]),
  earliestDateAvailable: z.string().optional(),
  latestDateCovered: z.string().optional(),
});
export type DeletedAnswer = z.infer<typeof deletedAnswer>;

/** getDeleted's date form: ISO 8601 with an explicit offset (the seconds are ignored by Salesforce). */
const replicationDate = (iso: string) => `${new Date(iso).toISOString().slice(0, 19)}+00:00`;

/** `GET /services/data/vXX.X/sobjects/<Type>/deleted/?start=…&end=…` (the delete log; 15 days back at most). */
export async function getDeleted(ctx: SalesforceCtx, type: string, start: string, end: string): Promise<DeletedAnswer> {
  const r = await salesforceGet<unknown>(ctx, dataPath(ctx, `sobjects/${type}/deleted/`), { start: replicationDate(start), end: replicationDate(end) });
  return deletedAnswer.parse(r.body);
}
