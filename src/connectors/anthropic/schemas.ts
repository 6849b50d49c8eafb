import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const anthropicCredentials = z
  .object({
    api_key: z
      .string()
      .trim()
      .min(1)
      .describe('an Anthropic Admin API key (sk-ant-admin…) from Console → Settings → Admin keys; sent as x-api-key. A normal API key (sk-ant-api…) is refused'),
  })
  .strict();
export type AnthropicCredentials = z.infer<typeof anthropicCredentials>;

export const anthropicSettings = z
  .object({
    lookback_days: z
      .number()
      .int()
      .min(1)
      .max(365)
      .default(30)
      .describe('days of usage and cost a full sync reads (and the searchable usage documents kept); ai_usage rows are kept longer'),
    overlap_days: z
      .number()
      .int()
      .min(0)
      .max(31)
      .default(2)
      .describe('complete days before the cursor an incremental sync reads again: Anthropic revises recent buckets, re-reads replace them'),
    include_cost: z.boolean().default(true).describe('read the cost report (GET /v1/organizations/cost_report) besides the messages usage report'),
    include_invites: z.boolean().default(true).describe('sync pending organization invites as documents'),
    ...commonSettings,
  })
  .strict();
export type AnthropicSettings = z.infer<typeof anthropicSettings>;
