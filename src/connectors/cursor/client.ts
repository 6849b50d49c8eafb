import { joinUrl, type SourceContext, vendorJson } from '../kit/index.ts';
import type { CursorCredentials, CursorSettings } from './schemas.ts';

type Ctx = SourceContext<CursorCredentials, CursorSettings>;

export const VENDOR = 'Cursor';
export const ADMIN_KEY_NEEDED = 'a Cursor Admin API key from cursor.com/dashboard → Settings → Cursor Admin API Keys (created by a team admin)';

/** `https://api.cursor.com`, or what ATRIUM_CONNECTOR_API_URLS says (a proxy, a test's fake). */
export function apiBase(ctx: Pick<Ctx, 'apiBaseUrl'>): string {
  return ctx.apiBaseUrl ?? 'https://api.cursor.com';
}

/** Cursor's Admin API takes the key as the Basic-auth username with an empty password (`curl -u KEY:`). */
export function basicAuth(key: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
}

/** One Admin API call: GET without a body, POST with a JSON body. */
export function cursorApi<T>(ctx: Ctx, path: string, body?: Record<string, unknown>): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), path), {
    vendor: VENDOR,
    authHint: `use ${ADMIN_KEY_NEEDED}`,
    method: body ? 'POST' : 'GET',
    headers: basicAuth(ctx.credentials.api_key),
    json: body,
  });
}
