import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { egressAllowProblem, type EgressSettings } from '../platform/egress.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** An env var holding JSON, validated by `schema`. */
function jsonEnv<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((v, ctx) => {
      try {
        return JSON.parse(v) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/**
 * Every setting Atrium reads, with its default. Parsed once at start by `loadConfig`;
 * only `src/main` passes `process.env` here. docs/configuration.md's table mirrors this.
 */
export const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  ATRIUM_DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  ATRIUM_ADMIN_API_KEY: z.string().min(16).optional(),
  ATRIUM_SECRET_KEY: z.string().optional(),
  ATRIUM_PUBLIC_URL: z.string().url().optional(),
  ATRIUM_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  ATRIUM_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(32 * 1024 * 1024),
  ATRIUM_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  ATRIUM_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(100),
  ATRIUM_EGRESS_ALLOW: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      for (const entry of splitList(v)) {
        const problem = egressAllowProblem(entry);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
    }),
  ATRIUM_EGRESS_DENY_PRIVATE: bool.optional(),
  ATRIUM_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(30),
  ATRIUM_TRUST_PROXY: bool.default(false),
  ATRIUM_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  ATRIUM_JOB_POLL_MS: z.coerce.number().int().min(10).default(500),
  ATRIUM_MCP_ALLOWED_ORIGINS: z.string().optional(),
  ATRIUM_MCP_ALLOWED_HOSTS: z.string().optional(),
  ATRIUM_MCP_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  ATRIUM_CONNECTOR_API_URLS: jsonEnv(z.record(z.string(), z.string().url())).default({}),
  ATRIUM_OAUTH_CLIENTS: jsonEnv(
    z.record(
      z.string(),
      // http(s) only: the authorization URL becomes a link in the console and a redirect for the user.
      z.object({ client_id: z.string().min(1), client_secret: z.string().min(1), authorize_url: z.url({ protocol: /^https?$/ }).optional(), token_url: z.url({ protocol: /^https?$/ }).optional() }),
    ),
  ).default({}),
  ATRIUM_SYNC_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(15),
  ATRIUM_SYNC_FULL_AT_UTC: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/).default('02:00'),
  ATRIUM_SYNC_SCHEDULER: bool.default(true),
  ATRIUM_FILESYSTEM_ROOTS: z.string().default(''),
  ATRIUM_LLM_BASE_URL: z.string().url().optional(),
  ATRIUM_LLM_API_KEY: z.string().optional(),
  ATRIUM_LLM_MODEL: z.string().default('gpt-4o-mini'),
  ATRIUM_SSO_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(28_800),
  ATRIUM_SSO_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(600).default(120),
  ATRIUM_FEDERATION_DEADLINE_MS: z.coerce.number().int().min(10).max(120_000).default(2000),
  ATRIUM_FEDERATION_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  ATRIUM_DAMPING_THRESHOLD: z.coerce.number().min(0).max(20).default(2.0),
  ATRIUM_DECAY_LAMBDA: z.coerce.number().min(0).max(10).default(0.05),
  ATRIUM_WEB_DIR: z.string().optional(),
  ATRIUM_FTS_LANGUAGE: z.string().regex(/^[a-z_]{2,63}$/, 'a PostgreSQL text search configuration, e.g. english').default('english'),
  ATRIUM_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).max(20_000).default(1000),
  ATRIUM_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(5000).default(150),
  ATRIUM_EMBEDDED_VECTOR_INDEX: z.enum(['usearch', 'pgvector']).default('usearch'),
  ATRIUM_EMBEDDING_MODEL: z.string().min(1).default('builtin/glove-100d'),
  ATRIUM_MODEL_CACHE_DIR: z.string().optional(),
  ATRIUM_EMBEDDINGS_WORKERS: z.coerce.number().int().min(0).max(64).default(0),
  ATRIUM_EMBEDDINGS_OPENAI_BASE_URL: z.string().url().optional(),
  ATRIUM_EMBEDDINGS_OPENAI_MODEL: z.string().min(1).default('text-embedding-3-small'),
  ATRIUM_EMBEDDINGS_OPENAI_API_KEY: z.string().optional(),
  ATRIUM_EMBEDDINGS_OPENAI_AUTH_HEADER: z.enum(['bearer', 'api-key']).default('bearer'),
  ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS: z.coerce.number().int().min(1).max(16_384).optional(),
  ATRIUM_EMBEDDINGS_OPENAI_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(64),
  ATRIUM_EMBEDDINGS_OPENAI_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  ATRIUM_EMBEDDINGS_ONNX_PATH: z.string().optional(),
  ATRIUM_EMBEDDINGS_ONNX_POOLING: z.enum(['mean', 'cls']).default('mean'),
  ATRIUM_EMBEDDINGS_ONNX_DIMENSIONS: z.coerce.number().int().min(1).max(16_384).optional(),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly storage: 'pglite' | 'postgres';
  readonly logLevel: RawConfig['LOG_LEVEL'];
  /** `auto`: readable lines on a terminal, JSON otherwise (LOG_FORMAT). */
  readonly logFormat: RawConfig['LOG_FORMAT'];
  readonly adminApiKey: string | undefined;
  readonly secretKey: string | undefined;
  readonly publicUrl: string;
  readonly role: RawConfig['ATRIUM_ROLE'];
  readonly bodyLimitBytes: number;
  readonly rateLimit: { readonly perMinute: number; readonly burst: number };
  /**
   * Outbound requests to tenant-supplied URLs (remote nodes, SSO IdPs): non-public addresses are refused unless
   * allowed when `denyPrivate` (default: production mode, i.e. DATABASE_URL set).
   */
  readonly egress: EgressSettings;
  /** Failed authentication attempts a client (address) may make per minute before 429; 0 = no limit. */
  readonly authFailuresPerMinute: number;
  readonly trustProxy: boolean;
  readonly worker: { readonly concurrency: number; readonly pollMs: number };
  /** MCP endpoint security: extra browser origins and Host names allowed (`*` = any), idle session expiry. */
  readonly mcp: { readonly allowedOrigins: readonly string[]; readonly allowedHosts: readonly string[]; readonly sessionIdleMinutes: number };
  /** Connectors and sync: vendor API base URLs, OAuth clients per kind, schedule defaults, the actions LLM. */
  readonly connectors: {
    readonly apiUrls: Readonly<Record<string, string>>;
    readonly oauthClients: RawConfig['ATRIUM_OAUTH_CLIENTS'];
    readonly syncIntervalMinutes: number;
    readonly fullSyncAtUtc: string;
    readonly scheduler: boolean;
    /** Folders `filesystem` connectors may sync (empty: none). */
    readonly filesystemRoots: readonly string[];
    readonly llm: { readonly baseUrl: string; readonly apiKey: string | undefined; readonly model: string } | undefined;
  };
  /** SSO: default session lifetime (tenants may override) and the allowed IdP clock skew. */
  readonly sso: { readonly sessionTtlSeconds: number; readonly clockSkewSeconds: number };
  /** Federated query: per-node deadline, result-cache TTL (0 = off), damping threshold, decay lambda. */
  readonly federation: { readonly deadlineMs: number; readonly cacheTtlMs: number; readonly dampingThreshold: number; readonly decayLambda: number };
  /** The built web console served at `/` (default: the package's web/dist). */
  readonly webDir: string;
  /** The document index: full-text language, chunk sizes in characters, and the embedded mode's vector index. */
  readonly documents: {
    readonly ftsLanguage: string;
    readonly chunkMaxChars: number;
    readonly chunkOverlapChars: number;
    readonly embeddedVectorIndex: 'usearch' | 'pgvector';
  };
  /** Embedding models: the default id, the generated-model cache, transformer worker threads (0 = one per core), remote and ONNX models. */
  readonly embeddings: {
    readonly defaultModel: string;
    readonly cacheDir: string;
    readonly workers: number;
    readonly openai?: {
      readonly baseUrl: string;
      readonly model: string;
      readonly apiKey?: string;
      readonly authHeader: 'bearer' | 'api-key';
      readonly dimensions?: number;
      readonly batchSize: number;
      readonly timeoutMs: number;
    };
    readonly onnx?: { readonly path: string; readonly pooling: 'mean' | 'cls'; readonly dimensions?: number };
  };
}

function splitList(v: string | undefined): string[] {
  return (v ?? '').split(',').map((x) => x.trim()).filter(Boolean);
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  const host = c.HOST;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return Object.freeze({
    host,
    port: c.PORT,
    dataDir: path.resolve(c.ATRIUM_DATA_DIR),
    databaseUrl: c.DATABASE_URL,
    storage: c.DATABASE_URL ? 'postgres' : 'pglite',
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    adminApiKey: c.ATRIUM_ADMIN_API_KEY,
    secretKey: c.ATRIUM_SECRET_KEY,
    publicUrl: (c.ATRIUM_PUBLIC_URL ?? `http://${shownHost}:${c.PORT}`).replace(/\/$/, ''),
    role: c.ATRIUM_ROLE,
    bodyLimitBytes: c.ATRIUM_BODY_LIMIT_BYTES,
    rateLimit: Object.freeze({ perMinute: c.ATRIUM_RATE_LIMIT_PER_MINUTE, burst: c.ATRIUM_RATE_LIMIT_BURST }),
    authFailuresPerMinute: c.ATRIUM_AUTH_FAILURES_PER_MINUTE,
    egress: Object.freeze({ allow: Object.freeze(splitList(c.ATRIUM_EGRESS_ALLOW)), denyPrivate: c.ATRIUM_EGRESS_DENY_PRIVATE ?? Boolean(c.DATABASE_URL) }),
    trustProxy: c.ATRIUM_TRUST_PROXY,
    worker: Object.freeze({ concurrency: c.ATRIUM_WORKER_CONCURRENCY, pollMs: c.ATRIUM_JOB_POLL_MS }),
    mcp: Object.freeze({
      allowedOrigins: splitList(c.ATRIUM_MCP_ALLOWED_ORIGINS),
      allowedHosts: splitList(c.ATRIUM_MCP_ALLOWED_HOSTS),
      sessionIdleMinutes: c.ATRIUM_MCP_SESSION_IDLE_MINUTES,
    }),
    connectors: Object.freeze({
      apiUrls: c.ATRIUM_CONNECTOR_API_URLS,
      oauthClients: c.ATRIUM_OAUTH_CLIENTS,
      syncIntervalMinutes: c.ATRIUM_SYNC_INTERVAL_MINUTES,
      fullSyncAtUtc: c.ATRIUM_SYNC_FULL_AT_UTC,
      scheduler: c.ATRIUM_SYNC_SCHEDULER,
      filesystemRoots: c.ATRIUM_FILESYSTEM_ROOTS.split(',').map((r) => r.trim()).filter(Boolean).map((r) => path.resolve(r)),
      llm: c.ATRIUM_LLM_BASE_URL ? { baseUrl: c.ATRIUM_LLM_BASE_URL.replace(/\/$/, ''), apiKey: c.ATRIUM_LLM_API_KEY, model: c.ATRIUM_LLM_MODEL } : undefined,
    }),
    sso: Object.freeze({ sessionTtlSeconds: c.ATRIUM_SSO_SESSION_TTL_SECONDS, clockSkewSeconds: c.ATRIUM_SSO_CLOCK_SKEW_SECONDS }),
    federation: Object.freeze({
      deadlineMs: c.ATRIUM_FEDERATION_DEADLINE_MS,
      cacheTtlMs: c.ATRIUM_FEDERATION_CACHE_TTL_MS,
      dampingThreshold: c.ATRIUM_DAMPING_THRESHOLD,
      decayLambda: c.ATRIUM_DECAY_LAMBDA,
    }),
    webDir: c.ATRIUM_WEB_DIR ? path.resolve(c.ATRIUM_WEB_DIR) : fileURLToPath(new URL('../../web/dist', import.meta.url)),
    documents: Object.freeze({
      ftsLanguage: c.ATRIUM_FTS_LANGUAGE,
      chunkMaxChars: c.ATRIUM_CHUNK_MAX_CHARS,
      chunkOverlapChars: Math.min(c.ATRIUM_CHUNK_OVERLAP_CHARS, Math.floor(c.ATRIUM_CHUNK_MAX_CHARS / 2)),
      embeddedVectorIndex: c.ATRIUM_EMBEDDED_VECTOR_INDEX,
    }),
    embeddings: Object.freeze({
      defaultModel: c.ATRIUM_EMBEDDING_MODEL,
      cacheDir: c.ATRIUM_MODEL_CACHE_DIR
        ? path.resolve(c.ATRIUM_MODEL_CACHE_DIR)
        : fileURLToPath(new URL('../../node_modules/.cache/atrium', import.meta.url)),
      workers: c.ATRIUM_EMBEDDINGS_WORKERS,
      openai: c.ATRIUM_EMBEDDINGS_OPENAI_BASE_URL
        ? {
            baseUrl: c.ATRIUM_EMBEDDINGS_OPENAI_BASE_URL,
            model: c.ATRIUM_EMBEDDINGS_OPENAI_MODEL,
            apiKey: c.ATRIUM_EMBEDDINGS_OPENAI_API_KEY,
            authHeader: c.ATRIUM_EMBEDDINGS_OPENAI_AUTH_HEADER,
            dimensions: c.ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS,
            batchSize: c.ATRIUM_EMBEDDINGS_OPENAI_BATCH_SIZE,
            timeoutMs: c.ATRIUM_EMBEDDINGS_OPENAI_TIMEOUT_MS,
          }
        : undefined,
      onnx: c.ATRIUM_EMBEDDINGS_ONNX_PATH
        ? { path: path.resolve(c.ATRIUM_EMBEDDINGS_ONNX_PATH), pooling: c.ATRIUM_EMBEDDINGS_ONNX_POOLING, dimensions: c.ATRIUM_EMBEDDINGS_ONNX_DIMENSIONS }
        : undefined,
    }),
  } satisfies Config);
}
