import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/** An OpenAI Admin API key: only admin keys may call the organization endpoints (usage, costs, audit logs, members). */
export const openaiCredentials = z
  .object({
    api_key: z
      .string()
      .trim()
      .min(1)
      .describe('an OpenAI Admin API key (sk-admin-…) from platform.openai.com → Organization settings → Admin keys; project and user keys cannot read the organization endpoints'),
  })
  .strict();
export type OpenAICredentials = z.infer<typeof openaiCredentials>;

/** The usage endpoints under `/organization/usage/` this kind reads (each its own bucketed report). */
export const USAGE_TYPES = ['completions', 'embeddings', 'images', 'audio_speeches', 'audio_transcriptions', 'moderations', 'vector_stores'] as const;
export type UsageType = (typeof USAGE_TYPES)[number];

export const openaiSettings = z
  .object({
    organization: z
      .string()
      .trim()
      .regex(/^org-[A-Za-z0-9_-]+$/, 'an organization id like "org-abc123"')
      .optional()
      .describe('the organization id (org-…) sent as the OpenAI-Organization header, for keys that belong to several organizations'),
    lookback_days: z.number().int().min(1).max(366).default(30).describe('days of usage, costs and audit logs the first (and every full) sync reads back from today'),
    overlap_days: z
      .number()
      .int()
      .min(0)
      .max(31)
      .default(2)
      .describe('complete days an incremental sync reads again before the last complete day read, because OpenAI revises recent buckets (re-read buckets replace the stored ones)'),
    usage_types: z
      .array(z.enum(USAGE_TYPES))
      .min(1)
      .default(['completions', 'embeddings', 'images', 'audio_speeches', 'audio_transcriptions', 'moderations', 'vector_stores'])
      .describe('which /organization/usage/<type> reports to read'),
    include_costs: z.boolean().default(true).describe('read /organization/costs (spend per day, project, API key and line item)'),
    include_audit_logs: z.boolean().default(true).describe('sync /organization/audit_logs events as documents (audit logging must be enabled for the organization)'),
    include_directory: z.boolean().default(true).describe('sync users, projects, project API keys (redacted) and service accounts as documents and identities'),
    ...commonSettings,
  })
  .strict();
export type OpenAISettings = z.infer<typeof openaiSettings>;
