import { z } from 'zod';
import type { SourceDocument, UsageRecord } from '../kit/index.ts';
import type { UsageType } from './schemas.ts';

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

// ---- helpers ----

const DASHBOARD = 'https://platform.openai.com';
export const USAGE_URL = `${DASHBOARD}/usage`;
export const API_KEYS_URL = `${DASHBOARD}/settings/organization/api-keys`;
export const ORG_URL = `${DASHBOARD}/settings/organization/general`;

export const iso = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();
export const dayOf = (unixSeconds: number): string => iso(unixSeconds).slice(0, 10);
const when = (unixSeconds: number): string => `${iso(unixSeconds).slice(0, 16).replace('T', ' ')} UTC`;
const lower = (s: string | null | undefined): string | null => (s ? s.toLowerCase() : null);

/** `1.2 M`, `34.5 k`, `812`: token counts as a person reads them. */
export function compact(n: number): string {
  if (Math.abs(n) >= 1e9) return `${trim(n / 1e9)} B`;
  if (Math.abs(n) >= 1e6) return `${trim(n / 1e6)} M`;
  if (Math.abs(n) >= 1e4) return `${trim(n / 1e3)} k`;
  return String(n);
}
const trim = (x: number): string => (Math.round(x * 10) / 10).toString();
export const usd = (v: number): string => `$${v.toFixed(2)}`;

export const userLabel = (dir: Directory, id: string | null | undefined): string | null => {
  if (!id) return null;
  const u = dir.users[id];
  return u?.email ?? u?.name ?? id;
};
export const projectLabel = (dir: Directory, id: string | null | undefined): string | null => (id ? (dir.projects[id] ?? id) : null);
export const keyLabel = (dir: Directory, id: string | null | undefined): string | null => (id ? (dir.keys[id]?.redacted ?? id) : null);

// ---- directory documents ----

export const userExternalId = (id: string) => `user:${id}`;
export const projectExternalId = (id: string) => `project:${id}`;
export const apiKeyExternalId = (id: string) => `api_key:${id}`;
export const serviceAccountExternalId = (id: string) => `service_account:${id}`;
export const auditExternalId = (id: string) => `audit:${id}`;
/** The account id of an OpenAI user or service account in the identity directory. */
export const openaiAccount = (id: string) => `openai:${id}`;

export function userToDocument(u: OpenAIUser): SourceDocument {
  const who = u.name || u.email || u.id;
  return {
    external_id: userExternalId(u.id),
    title: `OpenAI user ${who}${u.email && u.name ? ` (${u.email.toLowerCase()})` : ''}`,
    content: [
      `Name: ${u.name ?? '—'}`,
      `Email: ${lower(u.email) ?? '—'}`,
      `Organization role: ${u.role ?? '—'}`,
      u.added_at ? `Added: ${when(u.added_at)}` : '',
      u.is_service_account ? 'Service account user' : '',
      `User id: ${u.id}`,
    ]
      .filter(Boolean)
      .join('\n'),
    url: ORG_URL,
    author: lower(u.email) ?? undefined,
    document_type: 'openai_user',
    ...(u.added_at ? { created_at: iso(u.added_at), updated_at: iso(u.added_at) } : {}),
    metadata: { openai_id: u.id, email: lower(u.email), role: u.role ?? null },
  };
}

export function projectToDocument(p: OpenAIProject): SourceDocument {
  const archived = p.archived_at ?? null;
  return {
    external_id: projectExternalId(p.id),
    title: `OpenAI project ${p.name ?? p.id}`,
    content: [`Project: ${p.name ?? p.id}`, `Status: ${p.status ?? (archived ? 'archived' : 'active')}`, `Created: ${when(p.created_at)}`, archived ? `Archived: ${when(archived)}` : '', `Project id: ${p.id}`]
      .filter(Boolean)
      .join('\n'),
    url: ORG_URL,
    document_type: 'openai_project',
    created_at: iso(p.created_at),
    updated_at: iso(archived ?? p.created_at),
    metadata: { openai_id: p.id, status: p.status ?? null },
  };
}

/** A project API key: its name and OpenAI's redacted value (`sk-…abcd`) only, never the secret. */
export function apiKeyToDocument(k: OpenAIProjectKey, project: { id: string; name: string }): SourceDocument {
  const owner = k.owner?.user?.email?.toLowerCase() ?? k.owner?.user?.name ?? (k.owner?.service_account ? `service account ${k.owner.service_account.name ?? k.owner.service_account.id}` : null);
  return {
    external_id: apiKeyExternalId(k.id),
    title: `OpenAI API key ${k.name ?? k.id} (${k.redacted_value})`,
    content: [
      `API key: ${k.name ?? '—'} ${k.redacted_value}`,
      `Project: ${project.name}`,
      `Owner: ${owner ?? '—'}${k.owner?.type ? ` (${k.owner.type})` : ''}`,
      `Created: ${when(k.created_at)}`,
      `Last used: ${k.last_used_at ? when(k.last_used_at) : 'never'}`,
      `Key id: ${k.id}`,
    ].join('\n'),
    url: API_KEYS_URL,
    author: k.owner?.user?.email?.toLowerCase() ?? undefined,
    document_type: 'openai_api_key',
    created_at: iso(k.created_at),
    // Last use is not a change of the key: it stays in metadata so a used key is not re-stored on every sync.
    updated_at: iso(k.created_at),
    metadata: { openai_id: k.id, redacted_value: k.redacted_value, project_id: project.id, owner, last_used_at: k.last_used_at ? iso(k.last_used_at) : null },
  };
}

export function serviceAccountToDocument(s: OpenAIServiceAccount, project: { id: string; name: string }): SourceDocument {
  return {
    external_id: serviceAccountExternalId(s.id),
    title: `OpenAI service account ${s.name ?? s.id}`,
    content: [`Service account: ${s.name ?? s.id}`, `Project: ${project.name}`, `Role: ${s.role ?? '—'}`, `Created: ${when(s.created_at)}`, `Service account id: ${s.id}`].join('\n'),
    url: ORG_URL,
    document_type: 'openai_service_account',
    created_at: iso(s.created_at),
    updated_at: iso(s.created_at),
    metadata: { openai_id: s.id, project_id: project.id, role: s.role ?? null },
  };
}

/** Who did it: the session's user, the API key's user or service account. */
export function auditActor(e: OpenAIAuditLog, dir: Directory): { label: string; email: string | null } {
  const a = e.actor;
  const sessionEmail = lower(a?.session?.user?.email);
  if (a?.session) return { label: `${sessionEmail ?? a.session.user?.id ?? 'unknown user'}${a.session.ip_address ? ` from ${a.session.ip_address}` : ''}`, email: sessionEmail };
  if (a?.api_key) {
    const key = a.api_key.id ? ` with key ${keyLabel(dir, a.api_key.id)}` : '';
    const email = lower(a.api_key.user?.email);
    if (email || a.api_key.user?.id) return { label: `${email ?? a.api_key.user?.id}${key}`, email };
    const sa = a.api_key.service_account?.id;
    if (sa) return { label: `service account ${dir.serviceAccounts[sa] ?? sa}${key}`, email: null };
    return { label: `API key ${keyLabel(dir, a.api_key.id) ?? 'unknown'}`, email: null };
  }
  return { label: 'OpenAI', email: null };
}

/** An audit event: what happened (type), who (actor), when, on what (the type's target object and its details). */
export function auditToDocument(e: OpenAIAuditLog, dir: Directory): SourceDocument {
  const actor = auditActor(e, dir);
  const detail = (e as Record<string, unknown>)[e.type];
  const target = detail && typeof detail === 'object' ? (detail as Record<string, unknown>) : null;
  const targetId = typeof target?.id === 'string' ? target.id : null;
  const project = e.project?.name ?? (e.project?.id ? projectLabel(dir, e.project.id) : null);
  const details = target ? Object.entries(target).filter(([k]) => k !== 'id') : [];
  return {
    external_id: auditExternalId(e.id),
    title: `${e.type} by ${actor.label} — ${when(e.effective_at)}`,
    content: [
      `Event: ${e.type}`,
      `Actor: ${actor.label}`,
      `When: ${when(e.effective_at)}`,
      project ? `Project: ${project}` : '',
      targetId ? `Target: ${targetLabel(targetId, dir)}` : '',
      ...details.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
    ]
      .filter(Boolean)
      .join('\n'),
    url: ORG_URL,
    author: actor.email ?? undefined,
    document_type: 'openai_audit_event',
    created_at: iso(e.effective_at),
    updated_at: iso(e.effective_at),
    metadata: { event_type: e.type, effective_at: e.effective_at, actor: actor.label, actor_email: actor.email, project_id: e.project?.id ?? null, target_id: targetId },
  };
}

function targetLabel(id: string, dir: Directory): string {
  const named = dir.projects[id] ?? dir.keys[id]?.redacted ?? dir.serviceAccounts[id] ?? (dir.users[id] ? userLabel(dir, id) : null);
  return named ? `${named} (${id})` : id;
}

// ---- usage and costs ----

/** The counters a report's result carries, by report. */
export interface UsageCounters {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cached_tokens: number;
  readonly images: number;
  readonly characters: number;
  readonly seconds: number;
  readonly bytes: number;
}

const n = (v: number | null | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const part = (v: string | null | undefined): string => v || '-';

/** One usage result as a stored `ai_usage` row (record id stable: report, day and the grouped dimensions). */
export function usageRecord(type: UsageType, day: string, r: UsageResult, dir: Directory, workspace: string | null): UsageRecord {
  const metadata: Record<string, unknown> = {
    report: type,
    project_id: r.project_id ?? null,
    user_id: r.user_id ?? null,
    api_key_id: r.api_key_id ?? null,
  };
  if (r.api_key_id && dir.keys[r.api_key_id]) Object.assign(metadata, { api_key_redacted: dir.keys[r.api_key_id]?.redacted, api_key_name: dir.keys[r.api_key_id]?.name });
  for (const k of ['input_cached_tokens', 'input_audio_tokens', 'output_audio_tokens', 'images', 'characters', 'seconds', 'usage_bytes'] as const) if (typeof r[k] === 'number') metadata[k] = r[k];
  if (typeof r.batch === 'boolean') metadata.batch = r.batch;
  return {
    record_id: `usage:${type}:${day}:${part(r.project_id)}:${part(r.user_id)}:${part(r.api_key_id)}:${part(r.model)}${r.batch === true ? ':batch' : ''}`,
    kind: 'usage',
    day,
    workspace,
    project: projectLabel(dir, r.project_id),
    user: userLabel(dir, r.user_id),
    // The key's id: stable for findings and allow-lists even after the key is deleted (its redacted form is in metadata).
    api_key: r.api_key_id ?? null,
    model: r.model ?? null,
    requests: n(r.num_model_requests),
    input_tokens: n(r.input_tokens),
    output_tokens: n(r.output_tokens),
    metadata,
  };
}

/** One costs result as a stored row: spend per day, project, API key and line item. */
export function costRecord(day: string, r: UsageResult, dir: Directory, workspace: string | null): UsageRecord {
  return {
    record_id: `cost:${day}:${part(r.project_id)}:${part(r.api_key_id)}:${part(r.line_item)}`,
    kind: 'cost',
    day,
    workspace,
    project: projectLabel(dir, r.project_id),
    user: null,
    api_key: r.api_key_id ?? null,
    model: null,
    cost_usd: n(r.amount?.value),
    metadata: {
      line_item: r.line_item ?? null,
      ...(r.api_key_id && dir.keys[r.api_key_id] ? { api_key_redacted: dir.keys[r.api_key_id]?.redacted } : {}),
      project_id: r.project_id ?? null,
      api_key_id: r.api_key_id ?? null,
      currency: r.amount?.currency ?? 'usd',
      ...(typeof r.quantity === 'number' ? { quantity: r.quantity, quantity_unit: r.quantity_unit ?? null } : {}),
    },
  };
}

export const usageExternalId = (day: string, projectId: string | null | undefined, apiKeyId: string | null | undefined) => `usage:${day}:${part(projectId)}:${part(apiKeyId)}`;

/** What one usage document sums: one day, one project, one API key (any of them may be absent). */
export interface UsageGroup {
  readonly day: string;
  readonly projectId: string | null;
  readonly apiKeyId: string | null;
  readonly usage: { type: UsageType; result: UsageResult }[];
  readonly costs: UsageResult[];
}

interface Sum {
  requests: number;
  input: number;
  output: number;
  cached: number;
  images: number;
  characters: number;
  seconds: number;
  bytes: number;
}
const zero = (): Sum => ({ requests: 0, input: 0, output: 0, cached: 0, images: 0, characters: 0, seconds: 0, bytes: 0 });
function add(s: Sum, r: UsageResult): void {
  s.requests += n(r.num_model_requests);
  s.input += n(r.input_tokens);
  s.output += n(r.output_tokens);
  s.cached += n(r.input_cached_tokens);
  s.images += n(r.images);
  s.characters += n(r.characters);
  s.seconds += n(r.seconds);
  s.bytes += n(r.usage_bytes);
}
function describe(s: Sum): string {
  return [
    s.input ? `${compact(s.input)} input tokens${s.cached ? ` (${compact(s.cached)} cached)` : ''}` : '',
    s.output ? `${compact(s.output)} output tokens` : '',
    s.images ? `${s.images} images` : '',
    s.characters ? `${compact(s.characters)} characters` : '',
    s.seconds ? `${compact(s.seconds)} seconds of audio` : '',
    s.bytes ? `${compact(s.bytes)} bytes stored` : '',
    `${s.requests} requests`,
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * One searchable document per day, project and API key: usage of every report summed by model and by user, and the
 * day's spend by line item. Title: "Usage 2026-11-20, project Growth, key sk-…abcd, gpt-4.1: 1.2 M input tokens,
 * 0.3 M output tokens, 812 requests, $3.10". The key appears only by OpenAI's redacted value (or its id).
 */
export function usageToDocument(g: UsageGroup, dir: Directory): SourceDocument {
  const total = zero();
  const byModel = new Map<string, Sum>();
  const byUser = new Map<string, Sum>();
  for (const { type, result } of g.usage) {
    add(total, result);
    const model = `${result.model ?? 'all models'}${type === 'completions' ? '' : ` (${type.replace('_', ' ')})`}`;
    const m = byModel.get(model) ?? zero();
    add(m, result);
    byModel.set(model, m);
    const user = userLabel(dir, result.user_id) ?? 'no user (API key without user, or not grouped)';
    const u = byUser.get(user) ?? zero();
    add(u, result);
    byUser.set(user, u);
  }
  const cost = g.costs.reduce((s, c) => s + n(c.amount?.value), 0);
  const models = [...byModel.keys()].sort();
  const project = projectLabel(dir, g.projectId);
  const key = g.apiKeyId ? dir.keys[g.apiKeyId] : undefined;
  const keyText = g.apiKeyId ? `key ${key?.redacted ?? g.apiKeyId}` : 'no API key';
  const headline = [g.usage.length ? describe(total) : '', g.costs.length ? usd(cost) : ''].filter(Boolean).join(', ');
  const modelText = models.length === 0 ? '' : models.length === 1 ? `, ${models[0]}` : `, ${models[0]} + ${models.length - 1} more`;
  const title = `Usage ${g.day}, ${project ? `project ${project}` : 'no project'}, ${keyText}${modelText}: ${headline || 'no usage'}`;
  const lines = [
    `OpenAI usage on ${g.day} (UTC day).`,
    `Project: ${project ? `${project}${g.projectId && project !== g.projectId ? ` (${g.projectId})` : ''}` : '—'}`,
    `API key: ${g.apiKeyId ? `${key?.name ? `${key.name} ` : ''}${key?.redacted ?? ''}${key ? ' ' : ''}(${g.apiKeyId})${key?.owner ? `, owner ${key.owner}` : ''}` : '—'}`,
    g.usage.length ? `Total: ${describe(total)}` : '',
    g.costs.length ? `Spend: ${usd(cost)}` : '',
  ];
  if (g.usage.length) {
    lines.push('', 'By model:', ...models.map((m) => `- ${m}: ${describe(byModel.get(m) ?? zero())}`));
    lines.push('', 'By user:', ...[...byUser.keys()].sort().map((u) => `- ${u}: ${describe(byUser.get(u) ?? zero())}`));
  }
  if (g.costs.length) {
    const items = [...g.costs].sort((a, b) => String(a.line_item ?? '').localeCompare(String(b.line_item ?? '')));
    lines.push('', 'Spend by line item:', ...items.map((c) => `- ${c.line_item ?? 'total'}: ${usd(n(c.amount?.value))}`));
  }
  const users = [...new Set(g.usage.map((u) => userLabel(dir, u.result.user_id)).filter((x): x is string => Boolean(x)))].sort();
  const start = `${g.day}T00:00:00.000Z`;
  return {
    external_id: usageExternalId(g.day, g.projectId, g.apiKeyId),
    title,
    content: lines.filter((l, i) => l !== '' || i > 4).join('\n'),
    url: USAGE_URL,
    author: key?.owner?.includes('@') ? key.owner : users.length === 1 && users[0]?.includes('@') ? users[0] : undefined,
    document_type: 'openai_usage',
    created_at: start,
    updated_at: start,
    metadata: {
      day: g.day,
      project_id: g.projectId,
      project,
      api_key_id: g.apiKeyId,
      api_key: key?.redacted ?? g.apiKeyId,
      models: models,
      users,
      requests: total.requests,
      input_tokens: total.input,
      output_tokens: total.output,
      cost_usd: Math.round(cost * 1e6) / 1e6,
    },
  };
}
