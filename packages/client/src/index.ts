/**
 * @atrium/client: a typed client for Atrium's HTTP API. The types (`paths`, `operations`, `components`) are generated
 * from the OpenAPI document the service serves at GET /v1/openapi.json (schema.d.ts, `npm run generate:client`);
 * the runtime is openapi-fetch with the API key sent as a bearer token.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

export type { components, operations, paths };

/** The error shape every endpoint answers: `{ error: { code, message, details? } }`. */
export type AtriumErrorBody = components['schemas']['Error'];

/** A request the service refused (`status` its HTTP status, `code` its stable error code) or could not answer (status 0). */
export class AtriumApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  /** The URL the refused request went to, when there was an answer. */
  readonly url: string | undefined;
  constructor(status: number, code: string, message: string, details?: unknown, url?: string) {
    super(message);
    this.name = 'AtriumApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.url = url;
  }

  /** From an error response: its documented body when it has one, else the status and the start of the body. */
  static from(response: Response, body: unknown): AtriumApiError {
    const url = response.url || undefined;
    if (isErrorBody(body)) return new AtriumApiError(response.status, body.error.code, body.error.message, body.error.details, url);
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    return new AtriumApiError(response.status, `http_${response.status}`, `${response.status} ${response.statusText || 'error'}${text ? `: ${text}` : ''}`, undefined, url);
  }
}

export function isErrorBody(body: unknown): body is AtriumErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string' && typeof (error as { code?: unknown }).code === 'string';
}

export interface AtriumClientOptions {
  /** The service's base URL (`http://127.0.0.1:8080`); '' for same-origin requests in a browser. */
  readonly baseUrl: string;
  /** An API key (`atr_…`), or a function asked before each request (null: send none, e.g. a session cookie instead). */
  readonly apiKey?: string | null | (() => string | null | undefined);
  /** A fetch implementation (tests, proxies); default the global one. */
  readonly fetch?: typeof globalThis.fetch;
  /** Headers for every request. */
  readonly headers?: Record<string, string>;
  /** Browser credentials mode; default 'same-origin'. */
  readonly credentials?: RequestCredentials;
}

export type AtriumClient = Client<paths>;

/**
 * A client whose methods take the API's paths and answer `{ data, error, response }` typed from the schema:
 *
 *     const atrium = createAtriumClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.ATRIUM_API_KEY });
 *     const { passages } = await unwrap(atrium.POST('/v1/search', { body: { query: 'vacation policy' } }));
 */
export function createAtriumClient(opts: AtriumClientOptions): AtriumClient {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: opts.headers,
    credentials: opts.credentials ?? 'same-origin',
    // Looked up at call time, so a test (or a page) that replaces globalThis.fetch is honoured.
    fetch: (req) => (opts.fetch ?? globalThis.fetch)(req),
  });
  const auth: Middleware = {
    onRequest({ request }) {
      const key = typeof opts.apiKey === 'function' ? opts.apiKey() : opts.apiKey;
      if (key && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${key}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** What a client call resolves to (openapi-fetch's `{ data, error, response }`). */
export interface Outcome {
  readonly data?: unknown;
  readonly error?: unknown;
  readonly response: Response;
}

/** The success body of a response: `data` of openapi-fetch's result with the error case taken out. */
export type SuccessData<R extends Outcome> = Exclude<R['data'], undefined>;

/**
 * Awaits a client call and answers its body, or throws an AtriumApiError: the service's own code and message for an
 * error response, status 0 and `network_error` when it could not be reached (an abort is rethrown as is).
 */
export async function unwrap<R extends Outcome>(pending: Promise<R>): Promise<SuccessData<R>> {
  let result: R;
  try {
    result = await pending;
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new AtriumApiError(0, 'network_error', `the Atrium service could not be reached (${(err as Error).message ?? String(err)})`);
  }
  if (!result.response.ok) throw AtriumApiError.from(result.response, result.error);
  return result.data as SuccessData<R>;
}

function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

/** The JSON body of an operation's success response (`Response<'getMe'>`), for naming the types a caller keeps. */
export type OperationResponse<O extends keyof operations> = operations[O] extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : R extends { 202: { content: { 'application/json': infer B } } }
        ? B
        : never
  : never;

/** The JSON request body of an operation (`RequestBody<'postSearch'>`). */
export type OperationRequestBody<O extends keyof operations> = operations[O] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
