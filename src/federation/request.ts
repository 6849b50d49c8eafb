import { z } from 'zod';
import { rangeBound } from '../platform/time-range.ts';
import { sha256Hash } from './canonical.ts';
import { INTENT_DIMENSIONS, type IntentSignal } from './intent.ts';

/** The largest `max_results` (or `limit`) a request may ask for. */
export const MAX_RESULTS_LIMIT = 100;
export const DEFAULT_MAX_RESULTS = 10;

const unit = z.number().min(0).max(1);
const name = z.string().min(1).max(300);
const nameList = z.array(name).max(200);
const oneOrMany = z.union([name, nameList]);
const dateRange = z
  .object({
    after: rangeBound('after').optional().describe('ISO 8601 timestamp, or a date (YYYY-MM-DD, UTC) meaning from its start'),
    before: rangeBound('before').optional().describe('ISO 8601 timestamp, or a date (YYYY-MM-DD, UTC) meaning through its end; a timestamp is exclusive'),
  })
  .strict()
  .refine((r) => !r.after || !r.before || Date.parse(r.after) <= Date.parse(r.before), {
    message: 'after must not be later than before',
  });

export const intentSignalSchema = z
  .object(Object.fromEntries(INTENT_DIMENSIONS.map((d) => [d, unit.optional()])) as Record<(typeof INTENT_DIMENSIONS)[number], z.ZodOptional<typeof unit>>)
  .strict()
  .describe('Overrides the inferred intent; any subset of the five dimensions, each 0..1');

export const filtersSchema = z
  .object({
    date_range: dateRange.optional().describe('documents last updated at or after `after` and strictly before `before`'),
    dateRange: dateRange.optional().describe('client alias of date_range'),
    authors: nameList.optional(),
    types: nameList.optional().describe('document types (alias of document_type)'),
    connector_type: oneOrMany.optional(),
    document_type: oneOrMany.optional(),
  })
  .strict();

/**
 * The federated query request: the spec's fields plus the client-side options (`limit` = max_results,
 * `sources` = node_ids, `include_reasoning`/`includeReasoning`, `filters`). Unknown fields are rejected.
 */
export const federatedRequestSchema = z
  .object({
    query: z.string().max(4000).refine((q) => q.trim().length > 0, { message: 'query must not be blank' }),
    user_id: z.string().min(1).max(256),
    node_ids: nameList.min(1, 'node_ids must name at least one node (omit it to query every node)').optional(),
    sources: nameList.min(1, 'sources must name at least one node (omit it to query every node)').optional().describe('client alias of node_ids'),
    max_results: z.number().int().min(1).max(MAX_RESULTS_LIMIT).optional(),
    limit: z.number().int().min(1).max(MAX_RESULTS_LIMIT).optional().describe('client alias of max_results'),
    intent_signal: intentSignalSchema.optional(),
    include_reasoning: z.boolean().optional(),
    includeReasoning: z.boolean().optional().describe('client alias of include_reasoning'),
    filters: filtersSchema.optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.max_results !== undefined && r.limit !== undefined && r.max_results !== r.limit) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'limit is an alias of max_results: give one, or equal values' });
    }
    if (r.node_ids && r.sources && !sameSet(r.node_ids, r.sources)) {
      ctx.addIssue({ code: 'custom', path: ['sources'], message: 'sources is an alias of node_ids: give one, or the same list' });
    }
    if (r.include_reasoning !== undefined && r.includeReasoning !== undefined && r.include_reasoning !== r.includeReasoning) {
      ctx.addIssue({ code: 'custom', path: ['includeReasoning'], message: 'includeReasoning contradicts include_reasoning' });
    }
    if (r.filters?.date_range && r.filters.dateRange) {
      ctx.addIssue({ code: 'custom', path: ['filters', 'dateRange'], message: 'give date_range or dateRange, not both' });
    }
  });

export type FederatedRequestInput = z.infer<typeof federatedRequestSchema>;

export interface QueryFilters {
  readonly after?: string;
  readonly before?: string;
  readonly authors?: readonly string[];
  readonly document_types?: readonly string[];
  readonly connector_types?: readonly string[];
}

/** A request with aliases resolved and lists sorted: what the ranking and the hash see. */
export interface FederatedQuery {
  readonly query: string;
  readonly user_id: string;
  readonly node_ids: readonly string[] | null;
  readonly max_results: number;
  readonly intent_signal: Partial<IntentSignal> | null;
  readonly include_reasoning: boolean;
  readonly filters: QueryFilters;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = sortedUnique(a);
  const y = sortedUnique(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function sortedUnique(xs: readonly string[]): string[] {
  return [...new Set(xs)].sort();
}

function list(v: string | readonly string[] | undefined, extra?: readonly string[]): string[] | undefined {
  const all = [...(v === undefined ? [] : typeof v === 'string' ? [v] : v), ...(extra ?? [])];
  return all.length ? sortedUnique(all) : undefined;
}

/** Resolves aliases, trims and collapses whitespace in the query, sorts and de-duplicates every list. */
export function normalizeRequest(r: FederatedRequestInput): FederatedQuery {
  const range = r.filters?.date_range ?? r.filters?.dateRange;
  const nodeIds = r.node_ids ?? r.sources;
  const filters: QueryFilters = {
    after: range?.after ? new Date(range.after).toISOString() : undefined,
    before: range?.before ? new Date(range.before).toISOString() : undefined,
    authors: list(r.filters?.authors),
    document_types: list(r.filters?.document_type, r.filters?.types),
    connector_types: list(r.filters?.connector_type),
  };
  return {
    query: r.query.normalize('NFC').trim().replace(/\s+/g, ' '),
    user_id: r.user_id,
    node_ids: nodeIds ? sortedUnique(nodeIds) : null,
    max_results: r.max_results ?? r.limit ?? DEFAULT_MAX_RESULTS,
    // `{}` gives no signal: the same request (and hash) as leaving the field out.
    intent_signal: r.intent_signal && Object.values(r.intent_signal).some((v) => v !== undefined) ? { ...r.intent_signal } : null,
    include_reasoning: r.include_reasoning ?? r.includeReasoning ?? false,
    filters: Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as QueryFilters,
  };
}

/** `query_hash`: SHA-256 of the canonical (normalized) request; equal requests give equal hashes. */
export function queryHash(q: FederatedQuery): string {
  return sha256Hash({ v: 1, ...q });
}
