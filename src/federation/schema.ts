import { z } from 'zod';
import { ENTROPY_LEVELS } from './entropy.ts';

export const federatedItemSchema = z.object({
  id: z.string(),
  content: z.string(),
  source_node: z.string().describe('origin source: a connector id, or `<remote node>/<its source>`'),
  relevance_score: z.number().min(0).max(1),
  semantic_similarity: z.number().min(0).max(1),
  federation_confidence: z.number().min(0).max(1).describe('confidence of the embedding translation used (1 for the same model)'),
  temporal_status: z.enum(['recent', 'stale', 'historical']),
  is_critical: z.boolean(),
  suppressed_by_tombstone: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).describe('title, url, author, timestamp, connector_type, document_type and source-specific keys'),
  reasoning: z.record(z.string(), z.unknown()).optional().describe('score components, with include_reasoning'),
});

export const federatedResponseSchema = z.object({
  query_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  items: z.array(federatedItemSchema),
  nodes_consulted: z.array(z.string()),
  latency_ms: z.number().int().min(0),
  user_entropy: z.number().min(0),
  damping_active: z.boolean(),
  reasoning: z
    .object({
      intent: z.record(z.string(), z.number()),
      intent_inferred: z.array(z.string()),
      entropy_level: z.enum(ENTROPY_LEVELS),
      topic_bits: z.number(),
      rate_bits: z.number(),
      surfaced_limit: z.number().int(),
      per_node_budget: z.number().int(),
      cache: z.enum(['hit', 'miss', 'bypass']),
      nodes_failed: z.array(z.object({ node: z.string(), reason: z.string() })),
    })
    .optional()
    .describe('with include_reasoning: the intent used, the entropy level and the damping budget'),
});

export type FederatedResponse = z.infer<typeof federatedResponseSchema>;
