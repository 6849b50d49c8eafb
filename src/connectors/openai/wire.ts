/* The OpenAI Admin API's wire shapes (openai/openai-openapi) and the directory the sync keeps for labels. */
import { z } from 'zod';

// ---- wire shapes (OpenAI Admin API, openai/openai-openapi) ----

const nstr = z.string().nullable().optional();
const nnum = z.number().nullable().optional();

export const openaiUser = z.object({
  id: z.string(),
  name: nstr,
  email: nstr,
  role: nstr,
  added_at: nnum,
  is_service_account: z.boolean().optional(),
});
export type OpenAIUser = z.infer<typeof openaiUser>;

export const openaiProject = z.object({
  id: z.string(),
  name: nstr,
  created_at: z.number(),
  archived_at: nnum,
  status: nstr,
});
export type OpenAIProject = z.infer<typeof openaiProject>;

export const openaiProjectKey = z.object({
  id: z.string(),
  name: nstr,
  redacted_value: z.string(),
  created_at: z.number(),
  last_used_at: nnum,
  owner: z
    .object({
      type: nstr,
      user: z.object({ id: z.string().optional(), name: nstr, email: nstr }).nullable().optional(),
      service_account: z.object({ id: z.string().optional(), name: nstr }).nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type OpenAIProjectKey = z.infer<typeof openaiProjectKey>;

export const openaiServiceAccount = z.object({ id: z.string(), name: nstr, role: nstr, created_at: z.number() });
export type OpenAIServiceAccount = z.infer<typeof openaiServiceAccount>;

const actorUser = z.object({ id: nstr, email: nstr }).nullable().optional();
export const openaiAuditLog = z
  .object({
    id: z.string(),
    type: z.string(),
    effective_at: z.number(),
    project: z.object({ id: nstr, name: nstr }).nullable().optional(),
    actor: z
      .object({
        type: nstr,
        session: z.object({ user: actorUser, ip_address: nstr }).nullable().optional(),
        api_key: z.object({ id: nstr, type: nstr, user: actorUser, service_account: z.object({ id: nstr }).nullable().optional() }).nullable().optional(),
      })
      .nullable()
      .optional(),
  })
  .loose();
export type OpenAIAuditLog = z.infer<typeof openaiAuditLog>;

/** One result of a usage or costs bucket: the counters of its report and the grouped dimensions. */
export const usageResult = z
  .object({
    object: z.string(),
    project_id: nstr,
    user_id: nstr,
    api_key_id: nstr,
    model: nstr,
    batch: z.boolean().nullable().optional(),
    num_model_requests: nnum,
    input_tokens: nnum,
    output_tokens: nnum,
    input_cached_tokens: nnum,
    input_audio_tokens: nnum,
    output_audio_tokens: nnum,
    images: nnum,
    characters: nnum,
    seconds: nnum,
    usage_bytes: nnum,
    amount: z.object({ value: z.number().nullable().optional(), currency: nstr }).nullable().optional(),
    line_item: nstr,
    quantity: nnum,
    quantity_unit: nstr,
  })
  .loose();
export type UsageResult = z.infer<typeof usageResult>;

export const usageBucket = z.object({ object: z.string().optional(), start_time: z.number(), end_time: z.number(), results: z.array(usageResult) });
export type UsageBucket = z.infer<typeof usageBucket>;

// ---- the directory the sync keeps in its page state (labels for usage) ----

export const directory = z.object({
  /** user id → email (lower-cased) or name. */
  users: z.record(z.string(), z.object({ email: z.string().nullable(), name: z.string().nullable() })),
  /** project id → name. */
  projects: z.record(z.string(), z.string()),
  /** API key id → redacted value, name and owner. */
  keys: z.record(z.string(), z.object({ redacted: z.string(), name: z.string().nullable(), owner: z.string().nullable(), project: z.string() })),
  /** service account id → name. */
  serviceAccounts: z.record(z.string(), z.string()),
});
export type Directory = z.infer<typeof directory>;
export const emptyDirectory = (): Directory => ({ users: {}, projects: {}, keys: {}, serviceAccounts: {} });

