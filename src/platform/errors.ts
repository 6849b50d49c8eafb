import { z } from 'zod';

/** The one error type that reaches a wire. `code` is stable; `message` tells the user what to do. */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: string,
    status: number,
    message: string,
    opts: { details?: unknown; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = opts.details;
    this.headers = opts.headers ?? {};
  }
}

export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

export const Errors = {
  validation: (message: string, problems?: readonly FieldProblem[]) =>
    new AppError('invalid_request', 400, message, { details: problems ? { problems } : undefined }),
  malformedJson: (message: string) => new AppError('malformed_json', 400, `request body is not valid JSON: ${message}`),
  unauthenticated: (message = 'missing or invalid API key: send Authorization: Bearer <API_KEY>') =>
    new AppError('unauthenticated', 401, message),
  forbidden: (permission: string) =>
    new AppError('permission_denied', 403, `this credential lacks the '${permission}' permission`, {
      details: { required_permission: permission },
    }),
  /** A credential asked for a view of the documents it may not take (another person's, an ACL bypass). */
  viewForbidden: (message: string) => new AppError('permission_denied', 403, message, { details: { reason: 'acl_view' } }),
  notFound: (kind: string, id?: string) =>
    new AppError('not_found', 404, id === undefined ? `${kind} not found` : `${kind} '${id}' not found`, {
      details: id === undefined ? { kind } : { kind, id },
    }),
  routeNotFound: (method: string, url: string) => new AppError('route_not_found', 404, `no route ${method} ${url}`),
  conflict: (message: string, details?: unknown) => new AppError('conflict', 409, message, { details }),
  payloadTooLarge: (message: string) => new AppError('payload_too_large', 413, message),
  unsupportedMediaType: (type: string) =>
    new AppError('unsupported_media_type', 415, `content type '${type}' is not supported: send application/json`),
  unprocessable: (code: string, message: string, details?: unknown) => new AppError(code, 422, message, { details }),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 429, `rate limit exceeded: retry after ${retryAfterSeconds} s`, {
      details: { retry_after_seconds: retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  internal: (cause?: unknown) => new AppError('internal_error', 500, 'internal server error', { cause }),
  /** Every node a federated query selected failed with an error (none timed out): e.g. a remote node's key was revoked. */
  federationFailed: (message: string) => new AppError('federation_failed', 500, message),
  unavailable: (message: string) => new AppError('service_unavailable', 503, message),
  timeout: (message: string) => new AppError('timeout', 504, message),
} as const;

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * A failed outbound request in words, with the network cause undici hides behind "fetch failed"
 * (`fetch failed (connect ECONNREFUSED 127.0.0.1:9)`; a cause without a message gives its code).
 */
export function fetchFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause instanceof Error ? cause.message : typeof cause?.code === 'string' ? cause.code : undefined;
  return detail && !err.message.includes(detail) ? `${err.message} (${detail})` : err.message;
}

const openAiError = z.object({ error: z.object({ message: z.string() }) });

/** The `error.message` of an OpenAI-style error body (`{error: {message}}`), else the first 200 characters. */
export function openAiErrorMessage(text: string): string {
  try {
    const m = openAiError.safeParse(JSON.parse(text));
    if (m.success) return m.data.error.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 200).trim() || '(empty body)';
}

/**
 * The path (`body.documents.3.title`) of the first string or key inside `value` that holds U+0000, or null.
 * PostgreSQL text and jsonb cannot store that character: input holding it is refused with its field named.
 */
export function nulPath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return `${path}.${k.replaceAll('\u0000', '\\u0000')}`;
      const found = nulPath(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}

export const NUL_MESSAGE = 'contains a NUL character (\\u0000), which cannot be stored: remove it';

/**
 * A database error that is the client's fault, as the AppError the client should see; null for any other error.
 * PostgreSQL refuses U+0000 in text (SQLSTATE 22021; 22P05 in jsonb): input checks name the field first, and this
 * keeps any path they miss from answering 500.
 */
export function clientErrorFromDatabase(err: unknown): AppError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '22021' || code === '22P05') return Errors.validation(`invalid input: a text value ${NUL_MESSAGE}`);
  return null;
}
