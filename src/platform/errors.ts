import { z } from 'zod';

/**
 * Every error code the service answers with: its HTTP status and when it is used. docs/errors.md is generated from
 * this table (`node --import tsx scripts/error-table.ts`); a test fails when the page is stale. An AppError takes
 * only a code listed here, or one of the families below.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, when: 'the request does not validate; `details.problems` names each field' },
  malformed_json: { status: 400, when: 'the body is not valid JSON' },
  json_too_deep: { status: 400, when: 'the body nests objects and arrays deeper than the limit (`details.max_depth`)' },
  egress_denied: { status: 400, when: 'a URL the egress policy refuses (a private address in production mode), named by its field' },
  bad_request: { status: 400, when: 'another client error raised by the HTTP framework (its own `fst_err_*` code when it has one)' },
  unauthenticated: { status: 401, when: 'no credential, or an invalid, revoked or expired one (`details.reason: session_expired` for a session)' },
  invalid_signature: { status: 401, when: "a webhook delivery whose signature does not verify with the connector's secret" },
  permission_denied: { status: 403, when: 'the credential lacks the permission (`details.required_permission`), or asks a view of documents it may not take' },
  host_not_allowed: { status: 403, when: 'MCP over HTTP: the Host header does not name this service (DNS rebinding protection)' },
  origin_not_allowed: { status: 403, when: 'MCP over HTTP: the browser Origin is not allowed' },
  not_found: { status: 404, when: 'the named object does not exist for this tenant (`details.kind`, `details.id`)' },
  route_not_found: { status: 404, when: 'no route has this method and path' },
  tool_not_found: { status: 404, when: 'MCP invoke: no tool of that name, or one the credential may not call' },
  resource_not_found: { status: 404, when: 'MCP: no resource at that URI' },
  conflict: { status: 409, when: "the object's state does not allow it (e.g. a sync already running; `details.status`, `details.reason`)" },
  payload_too_large: { status: 413, when: 'the body or a batch exceeds its limit' },
  unsupported_media_type: { status: 415, when: 'a content type other than application/json' },
  oauth_unsupported: { status: 422, when: 'the connector kind does not use OAuth' },
  oauth_not_configured: { status: 422, when: 'no OAuth client is configured for the kind (ATRIUM_OAUTH_CLIENTS) and no credentials were given' },
  no_credentials: { status: 422, when: 'the connector kind takes no credentials' },
  no_actions: { status: 422, when: 'the connector kind declares no actions' },
  intent_not_understood: { status: 422, when: 'execute: the intent could not be planned into an action' },
  unknown_action: { status: 422, when: 'execute: the plan names an action the kind does not declare' },
  invalid_action_parameters: { status: 422, when: "execute: the action's parameters do not validate (pass them in `context`)" },
  webhook_unsupported: { status: 422, when: 'the connector kind does not receive webhooks' },
  webhook_secret_missing: { status: 422, when: "the kind's webhooks are signed with a vendor secret that is not in the credentials" },
  rate_limited: { status: 429, when: 'the rate limit is exceeded (`Retry-After`)' },
  too_many_failed_attempts: { status: 429, when: 'too many failed authentication attempts from this client (`Retry-After`)' },
  internal_error: { status: 500, when: 'an unexpected failure (logged, never detailed in the answer)' },
  federation_failed: { status: 500, when: 'every node a federated query selected failed with an error (none timed out)' },
  upstream_error: { status: 502, when: 'the LLM endpoint (ATRIUM_LLM_BASE_URL) failed' },
  embedding_provider_error: { status: 502, when: 'a remote embedding provider failed (retried by jobs)' },
  embedding_provider_rejected: { status: 502, when: 'a remote embedding provider rejected the request for good (key, model, dimensions)' },
  service_unavailable: { status: 503, when: 'a dependency of the request is not available right now' },
  embedding_model_unavailable: { status: 503, when: "an embedding model's optional package is not installed" },
  timeout: { status: 504, when: 'no selected node answered a federated query within the deadline' },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Families of codes catalogued elsewhere: the SSO problems (`auth/problems.ts` PROBLEMS, each with its remedy) and
 * Fastify's own client errors (lowercased `fst_err_*`).
 */
export const ERROR_FAMILIES = ['sso_', 'saml_', 'oidc_', 'fst_err_'] as const;
export type AppErrorCode = ErrorCode | `${(typeof ERROR_FAMILIES)[number]}${string}`;

/** The one error type that reaches a wire. `code` is stable; `message` tells the user what to do. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly status: number;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: AppErrorCode,
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
  jsonTooDeep: (limit: number) =>
    new AppError('json_too_deep', 400, `request body nests objects and arrays more than ${limit} levels deep: flatten it`, { details: { max_depth: limit } }),
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
  unprocessable: (code: ErrorCode, message: string, details?: unknown) => new AppError(code, 422, message, { details }),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 429, `rate limit exceeded: retry after ${retryAfterSeconds} s`, {
      details: { retry_after_seconds: retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  authThrottled: (retryAfterSeconds: number) =>
    new AppError('too_many_failed_attempts', 429, `too many failed authentication attempts from this client: retry after ${retryAfterSeconds} s`, {
      details: { retry_after_seconds: retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  /** A URL the egress policy refuses (a private address in production mode), named by its field. */
  egressDenied: (path: string, message: string) =>
    new AppError('egress_denied', 400, `${path.replace(/^body\./, '')}: ${message}`, { details: { problems: [{ path, message }] } }),
  internal: (cause?: unknown) => new AppError('internal_error', 500, 'internal server error', { cause }),
  /** Every node a federated query selected failed with an error (none timed out): e.g. a remote node's key was revoked. */
  federationFailed: (message: string) => new AppError('federation_failed', 500, message),
  unavailable: (message: string) => new AppError('service_unavailable', 503, message),
  timeout: (message: string) => new AppError('timeout', 504, message),
} as const;

/** Validation issues as one sentence a user can act on (`settings.path: Required; settings: Unrecognized key: "x"`), not zod's JSON. */
export function issuesSentence(issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[], root: string): string {
  return issues.map((i) => `${[root, ...i.path.map(String)].join('.')}: ${i.message}`).join('; ');
}

/** An error's message for a user: a zod validation error (whose message is JSON) as a sentence naming each field. */
export function errorSentence(err: unknown): string {
  if (err instanceof z.ZodError) return `unexpected data: ${issuesSentence(err.issues, '(data)')}`;
  return err instanceof Error ? err.message : String(err);
}

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
  return unstorableText(value, path, (s) => (s.includes('\u0000') ? NUL_MESSAGE : null))?.path ?? null;
}

/** A UTF-16 surrogate without its other half: `JSON.stringify` writes it as `\ud800`, which jsonb refuses. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** NUL or a lone surrogate, each match one code unit (NUL written as a code point: no control character in a regex literal). */
const UNSTORABLE_CHARS = new RegExp(`${String.fromCharCode(0)}|${LONE_SURROGATE.source}`, 'g');

/** Why a string cannot be stored in PostgreSQL text or jsonb (NUL, a lone surrogate), or null when it can. */
export function unstorableReason(s: string): string | null {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(s)) return LONE_SURROGATE_MESSAGE;
  return null;
}

/**
 * The first string or key inside `value` that PostgreSQL cannot store (U+0000, or a lone UTF-16 surrogate that
 * jsonb refuses), with its path (`body.documents.3.title`) and why; null when every one can. Input holding one is
 * refused with its field named before anything acts on it: a request that stored half its effects, or ran a
 * vendor action and then failed to write its audit row, must not happen. Walks with its own stack, so depth
 * costs no call stack.
 */
export function unstorableText(
  value: unknown,
  path: string,
  reasonOf: (s: string) => string | null = unstorableReason,
): { readonly path: string; readonly message: string } | null {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      const reason = reasonOf(v);
      if (reason) return { path: at, message: reason };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}.${i}`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (const [k] of entries) {
        const reason = reasonOf(k);
        if (reason) return { path: `${at}.${printableKey(k)}`, message: reason };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        stack.push([child, `${at}.${k}`]);
      }
    }
  }
  return null;
}

/** A key as it can be shown in a message: NUL and lone surrogates written as escapes. */
function printableKey(k: string): string {
  return k.replace(UNSTORABLE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `s` with what PostgreSQL cannot store replaced by U+FFFD (NUL, lone surrogates): for text the service writes
 * about input it did not refuse (an audit row naming an unknown MCP tool, a vendor's error message).
 */
export function storableText(s: string): string {
  return unstorableReason(s) === null ? s : s.replace(UNSTORABLE_CHARS, '\uFFFD');
}

/** `JSON.stringify(value)` with every string and key made storable (`storableText`), for jsonb columns. */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'string') return storableText(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => unstorableReason(k) !== null)) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), x]));
    }
    return v;
  });
}

export const NUL_MESSAGE = 'contains a NUL character (\\u0000), which cannot be stored: remove it';
export const LONE_SURROGATE_MESSAGE =
  'contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff), which is not valid Unicode and cannot be stored: send well-formed text';

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
