import { z } from 'zod';
import type { KindDefinition } from '../kit/index.ts';

/**
 * `api`: a push source. Documents arrive through POST /v1/connectors/{id}/documents (served by the
 * documents module); there is nothing to pull, so no credentials, no sync, no OAuth.
 */
export const apiKind: KindDefinition<Record<string, never>, { requests_per_minute?: number; requests_per_hour?: number; ingested_from?: string }> = {
  type: 'api',
  displayName: 'API (push)',
  category: 'push',
  group: 'other',
  authTypes: ['none'],
  credentials: z.object({}).strict(),
  settings: z
    .object({
      requests_per_minute: z.number().int().positive().optional(),
      requests_per_hour: z.number().int().positive().optional(),
      ingested_from: z.string().max(4096).optional().describe('the JSONL file `atrium ingest` read into this source (set by the CLI)'),
    })
    .strict(),
  contentTypes: ['documents pushed by the caller'],
  vendorLimits: {},
  hasUsableCredentials: () => true,
  validate: async () => ({ ok: true }),
};
