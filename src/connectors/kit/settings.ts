import { z } from 'zod';

/** Settings every kind accepts: its own rate limits and schedule (overriding the global defaults). */
export const commonSettings = {
  requests_per_minute: z.number().int().positive().optional().describe('token bucket refill per minute for this connector'),
  requests_per_hour: z.number().int().positive().optional().describe('ceiling per hour for this connector'),
  sync_interval_minutes: z.number().int().min(1).max(10_080).optional().describe('incremental sync interval (default 15)'),
  full_sync_at_utc: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
    .optional()
    .describe('daily full sync time, HH:MM UTC (default 02:00)'),
} as const;

/**
 * A customer's own vendor host (`site_url` of an Atlassian site, `base_url` of a self-managed GitLab, …): an absolute
 * https URL (http only for loopback, for local installs) with no credentials, query or fragment, stored without a
 * trailing slash. A bad URL is refused when the connector is created (400 naming `settings.<key>`).
 */
export function siteUrl(description: string) {
  return z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      const problem = siteUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((v) => v.replace(/\/+$/, ''))
    .describe(description);
}

function siteUrlProblem(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return `'${value.slice(0, 100)}' is not an absolute URL (e.g. https://example.atlassian.net)`;
  }
  const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) return 'must be an https URL';
  if (u.username || u.password) return 'must not contain credentials';
  if (u.search || u.hash) return 'must not contain a query or fragment';
  return null;
}
