import type { SourceDocument, UsageRecord } from '../kit/index.ts';
import { compact, projectLabel, USAGE_URL, usd, userLabel } from './map.ts';
import type { UsageType } from './schemas.ts';
import type { Directory, UsageResult } from './wire.ts';

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
