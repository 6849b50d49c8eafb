import { z } from 'zod';

/** The self-hosted MCP server's settings: the spec's keys, plus where to bind. */
export const selfHostedConfigSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(3333),
    host: z.string().min(1).default('127.0.0.1'),
    service_api_key: z.string().min(16).optional(),
    service_base_url: z.url({ protocol: /^https?$/ }),
    allowed_origins: z.array(z.string().min(1)).default([]),
    /** Host names this server answers to besides its bind address and loopback (DNS-rebinding check). */
    allowed_hosts: z.array(z.string().min(1)).default([]),
    rate_limit: z.object({ requests_per_minute: z.number().int().min(1).max(1_000_000).default(60) }).default({ requests_per_minute: 60 }),
    /** How long to wait for the service on one call. */
    request_timeout_seconds: z.number().int().min(1).max(600).default(60),
  })
  .strict();

export type SelfHostedConfig = z.output<typeof selfHostedConfigSchema> & { readonly service_api_key: string };

/**
 * Reads the JSON config file's object and the environment: `ATRIUM_API_KEY` supplies the key when the
 * file has none (keep it out of files); `ATRIUM_SERVICE_BASE_URL`, `ATRIUM_MCP_PORT`, `ATRIUM_MCP_HOST` and
 * `ATRIUM_MCP_ALLOWED_ORIGINS` (comma-separated) fill keys the file leaves out.
 */
export function parseSelfHostedConfig(file: unknown, env: Record<string, string | undefined>): SelfHostedConfig {
  const base = (file ?? {}) as Record<string, unknown>;
  if (typeof base !== 'object' || Array.isArray(base)) throw new Error('the config file must hold a JSON object');
  const merged: Record<string, unknown> = { ...base };
  if (merged.service_api_key === undefined && env.ATRIUM_API_KEY) merged.service_api_key = env.ATRIUM_API_KEY;
  if (merged.service_base_url === undefined && env.ATRIUM_SERVICE_BASE_URL) merged.service_base_url = env.ATRIUM_SERVICE_BASE_URL;
  if (merged.port === undefined && env.ATRIUM_MCP_PORT) merged.port = Number(env.ATRIUM_MCP_PORT);
  if (merged.host === undefined && env.ATRIUM_MCP_HOST) merged.host = env.ATRIUM_MCP_HOST;
  if (merged.allowed_origins === undefined && env.ATRIUM_MCP_ALLOWED_ORIGINS) {
    merged.allowed_origins = env.ATRIUM_MCP_ALLOWED_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean);
  }
  const parsed = selfHostedConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw new Error(`invalid MCP server configuration: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  const key = parsed.data.service_api_key;
  if (!key) throw new Error('invalid MCP server configuration: service_api_key is missing (set it in the file or in ATRIUM_API_KEY)');
  return { ...parsed.data, service_api_key: key };
}
