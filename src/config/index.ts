import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Every setting Atrium reads, with its default. Parsed once at start by `loadConfig`;
 * only `src/main` passes `process.env` here. The README's configuration table mirrors this.
 */
export const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  ATRIUM_DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ATRIUM_ADMIN_API_KEY: z.string().min(16).optional(),
  ATRIUM_SECRET_KEY: z.string().optional(),
  ATRIUM_PUBLIC_URL: z.string().url().optional(),
  ATRIUM_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  ATRIUM_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(32 * 1024 * 1024),
  ATRIUM_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  ATRIUM_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(100),
  ATRIUM_TRUST_PROXY: bool.default(false),
  ATRIUM_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  ATRIUM_JOB_POLL_MS: z.coerce.number().int().min(10).default(500),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly storage: 'pglite' | 'postgres';
  readonly logLevel: RawConfig['LOG_LEVEL'];
  readonly adminApiKey: string | undefined;
  readonly secretKey: string | undefined;
  readonly publicUrl: string;
  readonly role: RawConfig['ATRIUM_ROLE'];
  readonly bodyLimitBytes: number;
  readonly rateLimit: { readonly perMinute: number; readonly burst: number };
  readonly trustProxy: boolean;
  readonly worker: { readonly concurrency: number; readonly pollMs: number };
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
    adminApiKey: c.ATRIUM_ADMIN_API_KEY,
    secretKey: c.ATRIUM_SECRET_KEY,
    publicUrl: (c.ATRIUM_PUBLIC_URL ?? `http://${shownHost}:${c.PORT}`).replace(/\/$/, ''),
    role: c.ATRIUM_ROLE,
    bodyLimitBytes: c.ATRIUM_BODY_LIMIT_BYTES,
    rateLimit: Object.freeze({ perMinute: c.ATRIUM_RATE_LIMIT_PER_MINUTE, burst: c.ATRIUM_RATE_LIMIT_BURST }),
    trustProxy: c.ATRIUM_TRUST_PROXY,
    worker: Object.freeze({ concurrency: c.ATRIUM_WORKER_CONCURRENCY, pollMs: c.ATRIUM_JOB_POLL_MS }),
  } satisfies Config);
}
