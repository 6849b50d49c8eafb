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
