import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const cursorCredentials = z
  .object({
    api_key: z
      .string()
      .trim()
      .min(1)
      .describe('a Cursor Admin API key from cursor.com/dashboard → Settings → Cursor Admin API Keys (team admins only); sent as the Basic-auth username'),
  })
  .strict();
export type CursorCredentials = z.infer<typeof cursorCredentials>;

export const cursorSettings = z
  .object({
    lookback_days: z
      .number()
      .int()
      .min(1)
      .max(90)
      .default(30)
      .describe('days of usage a full sync reads (and the searchable usage documents kept); Cursor keeps a rolling window of usage data'),
    overlap_days: z
      .number()
      .int()
      .min(0)
      .max(30)
      .default(2)
      .describe('complete days up to the cursor an incremental sync reads again: Cursor aggregates usage hourly and revises recent days'),
    include_activity: z.boolean().default(true).describe("sync each member's daily activity (POST /teams/daily-usage-data: lines, accepts, requests by feature) as documents"),
    ...commonSettings,
  })
  .strict();
export type CursorSettings = z.infer<typeof cursorSettings>;
