import { APIErrorCode, APIResponseError, Client, LogLevel } from '@notionhq/client';
import { parseRetryAfter, type SourceContext, VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';
import type { NotionCredentials, NotionSettings } from './schemas.ts';

type Ctx = SourceContext<NotionCredentials, NotionSettings>;

/** The API version the connector speaks (databases hold data sources; rows are queried per data source). */
export const NOTION_VERSION = '2025-09-03';

/** The official client pointed at Notion (or a fake's base URL), behind the connector's bucket; the engine owns retries. */
export function notionClient(ctx: Ctx): Client {
  if (!ctx.credentials.access_token) throw new VendorAuthError('no Notion token: supply credentials.access_token or complete OAuth');
  return new Client({
    auth: ctx.credentials.access_token,
    baseUrl: ctx.apiBaseUrl ? ctx.apiBaseUrl.replace(/\/$/, '') : undefined,
    notionVersion: NOTION_VERSION,
    fetch: ctx.fetch as unknown as NonNullable<ConstructorParameters<typeof Client>[0]>['fetch'],
    retry: false,
    timeoutMs: 30_000,
    logLevel: LogLevel.ERROR,
  });
}

function header(headers: unknown, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  if (headers && typeof headers === 'object') {
    const v = (headers as Record<string, unknown>)[name];
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/** Maps Notion's error bodies (`{object:"error", status, code, message}`) to the engine's vendor errors. */
export function mapNotionError(err: unknown): unknown {
  if (err instanceof APIResponseError) {
    if (err.code === APIErrorCode.RateLimited || err.status === 429) {
      return new VendorRateLimitedError(`Notion rate limit (${err.message})`, parseRetryAfter(header(err.headers, 'retry-after'), Date.now()));
    }
    if (err.code === APIErrorCode.Unauthorized) {
      return new VendorAuthError(`Notion answered unauthorized (${err.message}): use an integration secret or OAuth token, and share the pages with the integration`);
    }
  }
  return err;
}

/** One SDK call, with Notion's errors mapped. */
export async function notionCall<T>(ctx: Ctx, call: (client: Client) => Promise<unknown>): Promise<T> {
  try {
    return (await call(notionClient(ctx))) as T;
  } catch (err) {
    throw mapNotionError(err);
  }
}
