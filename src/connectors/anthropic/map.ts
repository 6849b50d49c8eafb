import type { SourceDocument, UsageRecord } from '../kit/index.ts';

/**
 * Pure mappings of Admin API objects to searchable documents and `ai_usage` records. No ACL is set: the core makes
 * every `llm_providers` document readable only by `admin` / `ai_usage:read` (docs/ai-usage.md).
 */

const CONSOLE = 'https://console.anthropic.com';

export interface AUser {
  readonly id: string;
  readonly type: 'user';
  readonly email: string;
  readonly name: string;
  readonly role: string;
  readonly added_at: string;
}
export interface AWorkspace {
  readonly id: string;
  readonly type: 'workspace';
  readonly name: string;
  readonly created_at: string;
  readonly archived_at: string | null;
  readonly display_color?: string;
}
export interface AApiKey {
  readonly id: string;
  readonly type: 'api_key';
  readonly name: string;
  readonly workspace_id: string | null;
  readonly created_at: string;
  readonly created_by: { readonly id: string; readonly type: string };
  readonly partial_key_hint: string | null;
  readonly status: string;
}
export interface AInvite {
  readonly id: string;
  readonly type: 'invite';
  readonly email: string;
  readonly role: string;
  readonly invited_at: string;
  readonly expires_at: string;
  readonly status: string;
}
export interface AUsageResult {
  readonly workspace_id: string | null;
  readonly api_key_id: string | null;
  readonly model: string | null;
  readonly service_tier?: string | null;
  readonly context_window?: string | null;
  readonly uncached_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation?: { readonly ephemeral_1h_input_tokens?: number; readonly ephemeral_5m_input_tokens?: number } | null;
  readonly output_tokens: number;
  readonly server_tool_use?: { readonly web_search_requests?: number } | null;
}
export interface ACostResult {
  readonly workspace_id: string | null;
  readonly description: string | null;
  readonly cost_type?: string | null;
  readonly model?: string | null;
  readonly service_tier?: string | null;
  readonly context_window?: string | null;
  readonly token_type?: string | null;
  readonly currency: string;
  /** In the currency's lowest unit (cents) as a decimal string: "123.45" USD is $1.2345. */
  readonly amount: string;
}

/** What the directory phases learned, to name workspaces, keys and people in usage documents. */
export interface Directory {
  readonly workspaces: Readonly<Record<string, string>>;
  readonly users: Readonly<Record<string, string>>;
  readonly keys: Readonly<Record<string, { readonly name: string; readonly hint: string | null; readonly workspace_id: string | null; readonly created_by: string | null }>>;
}

export const userExternalId = (id: string) => `user:${id}`;
export const workspaceExternalId = (id: string) => `workspace:${id}`;
export const apiKeyExternalId = (id: string) => `api_key:${id}`;
export const inviteExternalId = (id: string) => `invite:${id}`;

/** `1,234`, `12.3 k`, `1.2 M`: how many tokens, readably. */
export function tokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} k`;
  return n.toLocaleString('en-US');
}

/** `$3.10`; amounts under a cent keep four decimals (`$0.0042`). */
export function dollars(n: number): string {
  return n > 0 && n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** Cents as a decimal string (the cost report's `amount`) → dollars, rounded to a millionth. */
export function centsToDollars(amount: string): number {
  const cents = Number(amount);
  return Number.isFinite(cents) ? Math.round(cents * 10_000) / 1_000_000 : 0;
}

const DEFAULT_WORKSPACE = 'Default';

function workspaceName(dir: Directory, id: string | null): string {
  if (!id) return DEFAULT_WORKSPACE;
  return dir.workspaces[id] ?? id;
}

function keyLabel(dir: Directory, id: string | null): string {
  if (!id) return 'no API key';
  return dir.keys[id]?.hint ?? id;
}

/** A key's creator as a lower-cased email where the directory knows the user. */
function keyCreator(dir: Directory, keyId: string | null): string | null {
  const by = keyId ? dir.keys[keyId]?.created_by : null;
  if (!by) return null;
  return dir.users[by] ?? by;
}

export function userToDocument(u: AUser): SourceDocument {
  return {
    external_id: userExternalId(u.id),
    title: `Anthropic member ${u.name} <${u.email.toLowerCase()}>`,
    content: [`Anthropic organization member: ${u.name}`, `Email: ${u.email.toLowerCase()}`, `Role: ${u.role}`, `Added: ${u.added_at.slice(0, 10)}`].join('\n'),
    url: `${CONSOLE}/settings/members`,
    document_type: 'ai_user',
    created_at: u.added_at,
    updated_at: u.added_at,
    metadata: { provider: 'anthropic', user_id: u.id, email: u.email.toLowerCase(), role: u.role },
  };
}

export function workspaceToDocument(w: AWorkspace): SourceDocument {
  return {
    external_id: workspaceExternalId(w.id),
    title: `Anthropic workspace ${w.name}`,
    content: [`Anthropic workspace: ${w.name} (${w.id})`, `Created: ${w.created_at.slice(0, 10)}`, w.archived_at ? `Archived: ${w.archived_at.slice(0, 10)}` : 'Active'].join('\n'),
    url: `${CONSOLE}/settings/workspaces`,
    document_type: 'ai_workspace',
    created_at: w.created_at,
    updated_at: w.archived_at ?? w.created_at,
    metadata: { provider: 'anthropic', workspace_id: w.id, archived: w.archived_at !== null },
  };
}

/** An API key by its name and Anthropic's redacted hint (`sk-ant-api03-R2D...igAA`): never the secret. */
export function apiKeyToDocument(k: AApiKey, dir: Directory): SourceDocument {
  const creator = keyCreator(dir, k.id);
  return {
    external_id: apiKeyExternalId(k.id),
    title: `Anthropic API key ${k.name}${k.partial_key_hint ? ` (${k.partial_key_hint})` : ''}`,
    content: [
      `Anthropic API key: ${k.name}`,
      `Key: ${k.partial_key_hint ?? '(no hint)'} (${k.id})`,
      `Status: ${k.status}`,
      `Workspace: ${workspaceName(dir, k.workspace_id)}`,
      `Created: ${k.created_at.slice(0, 10)}${creator ? ` by ${creator}` : ''}`,
    ].join('\n'),
    url: `${CONSOLE}/settings/keys`,
    author: creator ?? undefined,
    document_type: 'ai_api_key',
    created_at: k.created_at,
    updated_at: k.created_at,
    metadata: { provider: 'anthropic', api_key_id: k.id, partial_key_hint: k.partial_key_hint, status: k.status, workspace_id: k.workspace_id, created_by: k.created_by.id },
  };
}

export function inviteToDocument(i: AInvite): SourceDocument {
  return {
    external_id: inviteExternalId(i.id),
    title: `Anthropic invite ${i.email.toLowerCase()} (${i.status})`,
    content: [`Invitation to the Anthropic organization: ${i.email.toLowerCase()}`, `Role: ${i.role}`, `Status: ${i.status}`, `Invited: ${i.invited_at.slice(0, 10)}`, `Expires: ${i.expires_at.slice(0, 10)}`].join('\n'),
    url: `${CONSOLE}/settings/members`,
    document_type: 'ai_invite',
    created_at: i.invited_at,
    updated_at: i.invited_at,
    metadata: { provider: 'anthropic', invite_id: i.id, email: i.email.toLowerCase(), status: i.status },
  };
}

/** The usage group's stable id: one per day, workspace, key and model (the report's `group_by`). */
export function usageId(day: string, r: Pick<AUsageResult, 'workspace_id' | 'api_key_id' | 'model'>): string {
  return `usage:${day}:${r.workspace_id ?? 'default'}:${r.api_key_id ?? 'none'}:${r.model ?? 'unknown'}`;
}

function inputTotal(r: AUsageResult): { total: number; cacheWrite: number } {
  const cacheWrite = (r.cache_creation?.ephemeral_5m_input_tokens ?? 0) + (r.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return { total: r.uncached_input_tokens + r.cache_read_input_tokens + cacheWrite, cacheWrite };
}

/**
 * One usage group of one day: its `ai_usage` record and its searchable document. Input tokens count uncached input,
 * cache reads and cache writes (the breakdown is kept in metadata); the key is its id (the redacted hint in metadata);
 * the person is the key's creator.
 */
export function usageResult(day: string, r: AUsageResult, dir: Directory): { record: UsageRecord; document: SourceDocument } {
  const id = usageId(day, r);
  const { total, cacheWrite } = inputTotal(r);
  const ws = workspaceName(dir, r.workspace_id);
  const key = keyLabel(dir, r.api_key_id);
  const keyName = r.api_key_id ? dir.keys[r.api_key_id]?.name : undefined;
  const creator = keyCreator(dir, r.api_key_id);
  const model = r.model ?? 'unknown model';
  const webSearches = r.server_tool_use?.web_search_requests ?? 0;
  const metadata = {
    provider: 'anthropic',
    workspace_id: r.workspace_id,
    api_key_id: r.api_key_id,
    api_key_name: keyName ?? null,
    partial_key_hint: r.api_key_id ? (dir.keys[r.api_key_id]?.hint ?? null) : null,
    uncached_input_tokens: r.uncached_input_tokens,
    cache_read_input_tokens: r.cache_read_input_tokens,
    cache_creation_5m_input_tokens: r.cache_creation?.ephemeral_5m_input_tokens ?? 0,
    cache_creation_1h_input_tokens: r.cache_creation?.ephemeral_1h_input_tokens ?? 0,
    web_search_requests: webSearches,
  };
  const record: UsageRecord = {
    record_id: id,
    kind: 'usage',
    day,
    workspace: r.workspace_id ? ws : DEFAULT_WORKSPACE,
    project: null,
    user: creator,
    // The key's id, stable even once the key is deleted (its hint is then unknown); the hint is in metadata and text.
    api_key: r.api_key_id,
    model: r.model,
    input_tokens: total,
    output_tokens: r.output_tokens,
    metadata,
  };
  const title = `Usage ${day}, workspace ${ws}, key ${key}, ${model}: ${tokens(total)} input tokens, ${tokens(r.output_tokens)} output tokens`;
  const content = [
    `Anthropic Messages API usage on ${day} (UTC).`,
    `Workspace: ${ws}${r.workspace_id ? ` (${r.workspace_id})` : ''}`,
    `API key: ${r.api_key_id ? `${keyName ? `${keyName}, ` : ''}${key} (${r.api_key_id})` : 'none (Console or Workbench)'}${creator ? `, created by ${creator}` : ''}`,
    `Model: ${model}`,
    `Input tokens: ${tokens(total)} (uncached ${tokens(r.uncached_input_tokens)}, cache reads ${tokens(r.cache_read_input_tokens)}, cache writes ${tokens(cacheWrite)})`,
    `Output tokens: ${tokens(r.output_tokens)}`,
    ...(webSearches > 0 ? [`Web search requests: ${webSearches}`] : []),
  ].join('\n');
  const document: SourceDocument = {
    external_id: id,
    title,
    content,
    url: `${CONSOLE}/usage`,
    author: creator ?? undefined,
    document_type: 'ai_usage',
    created_at: `${day}T00:00:00.000Z`,
    updated_at: `${day}T00:00:00.000Z`,
    metadata: { ...metadata, day, model: r.model, input_tokens: total, output_tokens: r.output_tokens },
  };
  return { record, document };
}

function costLineKey(r: ACostResult): string {
  return [r.description ?? r.cost_type ?? 'cost', r.service_tier, r.context_window].filter(Boolean).join('|');
}

export const costDocumentId = (day: string, workspaceId: string | null) => `cost:${day}:${workspaceId ?? 'default'}`;

/** One cost line of a day (`group_by` workspace and description) as an `ai_usage` record, in dollars. */
export function costRecord(day: string, r: ACostResult, dir: Directory): UsageRecord {
  return {
    record_id: `cost:${day}:${r.workspace_id ?? 'default'}:${costLineKey(r)}`,
    kind: 'cost',
    day,
    workspace: r.workspace_id ? workspaceName(dir, r.workspace_id) : DEFAULT_WORKSPACE,
    project: null,
    user: null,
    api_key: null,
    model: r.model ?? null,
    cost_usd: r.currency === 'USD' ? centsToDollars(r.amount) : 0,
    metadata: {
      provider: 'anthropic',
      workspace_id: r.workspace_id,
      description: r.description,
      cost_type: r.cost_type ?? null,
      token_type: r.token_type ?? null,
      service_tier: r.service_tier ?? null,
      context_window: r.context_window ?? null,
      currency: r.currency,
      amount_cents: r.amount,
    },
  };
}

/** A workspace's spend of one day, its lines largest first, as one searchable document. */
export function costDocument(day: string, workspaceId: string | null, lines: readonly ACostResult[], dir: Directory): SourceDocument {
  const ws = workspaceName(dir, workspaceId);
  const items = lines.map((l) => ({ label: l.description ?? l.cost_type ?? 'cost', usd: centsToDollars(l.amount) })).sort((a, b) => b.usd - a.usd || a.label.localeCompare(b.label));
  const total = items.reduce((s, i) => s + i.usd, 0);
  const models = [...new Set(lines.map((l) => l.model).filter((m): m is string => Boolean(m)))].sort();
  return {
    external_id: costDocumentId(day, workspaceId),
    title: `Cost ${day}, workspace ${ws}: ${dollars(total)}`,
    content: [`Anthropic spend on ${day} (UTC), workspace ${ws}: ${dollars(total)}`, ...(models.length ? [`Models: ${models.join(', ')}`] : []), '', ...items.map((i) => `- ${i.label}: ${dollars(i.usd)}`)].join('\n'),
    url: `${CONSOLE}/cost`,
    document_type: 'ai_cost',
    created_at: `${day}T00:00:00.000Z`,
    updated_at: `${day}T00:00:00.000Z`,
    metadata: { provider: 'anthropic', day, workspace_id: workspaceId, cost_usd: Math.round(total * 1_000_000) / 1_000_000, models },
  };
}
