// The console's only way to the service: same-origin fetch to /v1 with the API key from
// sessionStorage (or the SSO session cookie, which the browser sends by itself). Calls go through the typed client
// generated from the service's OpenAPI document (packages/client): `call((c) => c.GET('/v1/me'))`.
import { AtriumApiError, type AtriumClient, createAtriumClient, type Outcome, type SuccessData, unwrap } from '../../packages/client/src/index.ts';

import type { OperationResponse, operations } from '../../packages/client/src/index.ts';

export type { OperationRequestBody, OperationResponse, operations } from '../../packages/client/src/index.ts';

const KEY_STORAGE = 'atrium.apiKey';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  try {
    if (key === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage can be disabled; the key then lives only in this page.
  }
}

/** An API error carrying the service's own `{error: {code, message, details}}` (the typed client's error). */
export class ApiError extends AtriumApiError {
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(status, code, message, details);
    this.name = 'ApiError';
  }
}

const UNREACHABLE = 'The Atrium service could not be reached. Check that it is running.';

/** The service's API, typed from its OpenAPI document, with the tab's stored key (or the session cookie). */
export const atrium: AtriumClient = createAtriumClient({ baseUrl: '', apiKey: storedKey });

/**
 * One typed call: `await call((c) => c.GET('/v1/connectors/{id}', { params: { path: { id } }, signal }))` answers the
 * success body typed from the schema, or throws an ApiError. `key`: an explicit key (checking one before storing it),
 * or null for none (public endpoints); either way a rejection says nothing about the signed-in state.
 */
export async function call<R extends Outcome>(fn: (client: AtriumClient) => Promise<R>, opts: { readonly key?: string | null } = {}): Promise<SuccessData<R>> {
  const sent = opts.key === undefined ? storedKey() : opts.key;
  const client = opts.key === undefined ? atrium : createAtriumClient({ baseUrl: '', apiKey: opts.key });
  try {
    return await unwrap(fn(client));
  } catch (err) {
    if (!(err instanceof AtriumApiError)) throw err;
    const e = new ApiError(err.status, err.code, err.status === 0 ? UNREACHABLE : err.message, err.details);
    if (opts.key === undefined && credentialRejected(e)) for (const listener of unauthorizedListeners) listener(sent);
    throw e;
  }
}

export interface RequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly query?: Record<string, string | number | boolean | undefined | null>;
  readonly signal?: AbortSignal;
  /** Send no credential (public endpoints, and checking a key before storing it). */
  readonly key?: string | null;
  readonly accept?: string;
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function send(path: string, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
  const key = opts.key === undefined ? storedKey() : opts.key;
  if (key) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(buildUrl(path, opts.query), { method: opts.method ?? 'GET', headers, body, signal: opts.signal, credentials: 'same-origin' });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', UNREACHABLE);
  }
  if (!res.ok) {
    const err = await toApiError(res);
    // Only requests made with the tab's own credential: an explicit key (checking one before storing it) or
    // none (public endpoints) says nothing about the signed-in state.
    if (opts.key === undefined && credentialRejected(err)) for (const listener of unauthorizedListeners) listener(key);
    throw err;
  }
  return res;
}

/**
 * The service no longer accepts the credential (a revoked or unknown key, an expired or ended session). Other
 * 401s carry their own codes (an SSO configuration problem such as `sso_idp_certificate_expired`) and are about
 * the request, not about who is signed in.
 */
function credentialRejected(err: ApiError): boolean {
  return err.status === 401 && (err.code === 'unauthenticated' || err.code === 'http_401');
}

/** Told the stored key the rejected request carried (null: it relied on the session cookie). */
export type UnauthorizedListener = (sentKey: string | null) => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Calls `listener` whenever an API call is rejected for its credential; returns the unsubscribe function. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => {
    unauthorizedListeners.delete(listener);
  };
}

async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.message === 'string') {
      const code = typeof parsed.error.code === 'string' ? parsed.error.code : `http_${res.status}`;
      return new ApiError(res.status, code, parsed.error.message, parsed.error.details);
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(res.status, `http_${res.status}`, `${res.status} ${res.statusText || 'error'}${text ? `: ${text.slice(0, 200)}` : ''}`);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A JSON request the typed client cannot describe: only the OpenAPI document itself (below). Every API operation goes
 * through `call`, so its types come from the schema; not exported, so no page grows a hand-written response type again.
 */
async function api<T = unknown>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(path, opts);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A file the service sends as an attachment (a CSV export), fetched with the credential, and its file name. */
export async function apiFile(path: string, opts: RequestOptions = {}): Promise<{ blob: Blob; filename: string | null }> {
  const res = await send(path, { ...opts, accept: opts.accept ?? '*/*' });
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? null;
  return { blob: await res.blob(), filename: name };
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

// The service's OpenAPI document tells which capabilities are installed, so pages can say
// "not available on this server" instead of failing later.
let openapiPaths: Promise<Set<string>> | null = null;
export function availablePaths(): Promise<Set<string>> {
  openapiPaths ??= api<{ paths?: Record<string, unknown> }>('/v1/openapi.json', { key: null })
    .then((doc) => new Set(Object.keys(doc.paths ?? {})))
    .catch(() => {
      openapiPaths = null;
      return new Set<string>();
    });
  return openapiPaths;
}

// ---------------------------------------------------------------------------------------------------------------
// Uploads of exports (POST /v1/connectors/{connector_id}/imports). Not through the typed client's fetch: only
// XMLHttpRequest reports the bytes sent as they go. The answer and the options are still the schema's types.

/** What `POST /v1/connectors/{connector_id}/imports` answers. */
export type ImportResult = OperationResponse<'postConnectorImports'>;

/** Column mapping and options of an upload, sent as the query string (CSV and JSONL columns, Slack workspace URL). */
export type ImportOptions = Omit<NonNullable<operations['postConnectorImports']['parameters']['query']>, 'filename'>;

/** The upload's state: `sending` with the share of bytes sent, then `reading` while the service reads and stores. */
export type UploadProgress = { readonly stage: 'sending'; readonly sent: number; readonly total: number } | { readonly stage: 'reading' };

const UPLOAD_TYPES: Readonly<Record<string, string>> = { zip: 'application/zip', csv: 'text/csv', jsonl: 'application/x-ndjson' };

/**
 * Uploads a file into a push connector. XMLHttpRequest, not fetch: only it reports the bytes sent as they go.
 * Rejects with an ApiError carrying the service's error (its `details.skipped` lists the files an empty archive left out).
 */
export function uploadImport(connectorId: string, file: File, options: ImportOptions, onProgress: (p: UploadProgress) => void): Promise<ImportResult> {
  const query: Record<string, string> = { filename: file.name };
  for (const [k, v] of Object.entries(options)) if (typeof v === 'string' && v.trim()) query[k] = v.trim();
  const url = buildUrl(`/v1/connectors/${encodeURIComponent(connectorId)}/imports`, query);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = true;
    const key = storedKey();
    if (key) xhr.setRequestHeader('authorization', `Bearer ${key}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', (options.format && UPLOAD_TYPES[options.format]) || 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress({ stage: 'sending', sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.upload.onload = () => onProgress({ stage: 'reading' });
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The Atrium service could not be reached. Check that it is running.'));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as ImportResult); // the service's answer to this operation, per its response schema
        return;
      }
      const e = isRecord(body) && isRecord(body.error) ? body.error : {};
      reject(
        new ApiError(
          xhr.status,
          typeof e.code === 'string' ? e.code : `http_${xhr.status}`,
          typeof e.message === 'string' ? e.message : `${xhr.status} ${xhr.statusText || 'error'}`,
          e.details,
        ),
      );
    };
    xhr.send(file);
  });
}
