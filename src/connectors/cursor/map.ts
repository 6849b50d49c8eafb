import type { SourceDocument, UsageRecord } from '../kit/index.ts';

/**
 * Pure mappings of Cursor Admin API objects to searchable documents and `ai_usage` records. No ACL is set: the core
 * makes every `llm_providers` document readable only by `admin` / `ai_usage:read` (docs/ai-usage.md).
 */

const DASHBOARD = 'https://cursor.com/dashboard';

export interface CMember {
  readonly name: string;
  readonly email: string;
  readonly role: string;
}
export interface CSpend {
  readonly email: string;
  readonly name?: string;
  readonly spendCents: number;
  readonly fastPremiumRequests?: number;
  readonly hardLimitOverrideDollars?: number | null;
}
export interface CDaily {
  readonly date: number;
  readonly email?: string | null;
  readonly isActive: boolean;
  readonly totalLinesAdded?: number;
  readonly totalLinesDeleted?: number;
  readonly acceptedLinesAdded?: number;
  readonly acceptedLinesDeleted?: number;
  readonly totalApplies?: number;
  readonly totalAccepts?: number;
  readonly totalRejects?: number;
  readonly totalTabsShown?: number;
  readonly totalTabsAccepted?: number;
  readonly composerRequests?: number;
  readonly chatRequests?: number;
  readonly agentRequests?: number;
  readonly cmdkUsages?: number;
  readonly subscriptionIncludedReqs?: number;
  readonly apiKeyReqs?: number;
  readonly usageBasedReqs?: number;
  readonly bugbotUsages?: number;
  readonly mostUsedModel?: string | null;
  readonly clientVersion?: string | null;
}
export interface CEvent {
  /** Epoch milliseconds, as a string. */
  readonly timestamp: string;
  readonly model: string;
  readonly kind: string;
  readonly maxMode?: boolean;
  readonly requestsCosts?: number;
  readonly isTokenBasedCall?: boolean;
  readonly tokenUsage?: { readonly inputTokens?: number; readonly outputTokens?: number; readonly cacheWriteTokens?: number; readonly cacheReadTokens?: number; readonly totalCents?: number } | null;
  readonly userEmail: string;
}

/** One (day, member, model) cell summed over that day's usage events. */
export interface Cell {
  day: string;
  email: string;
  model: string;
  requests: number;
  request_units: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_read_tokens: number;
  cents: number;
  kinds: string[];
}

export const memberExternalId = (email: string) => `member:${email.toLowerCase()}`;
export const activityExternalId = (day: string, email: string) => `activity:${day}:${email.toLowerCase()}`;
export const usageId = (day: string, email: string, model: string) => `usage:${day}:${email.toLowerCase()}:${model}`;

export const dayOfMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function tokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} k`;
  return n.toLocaleString('en-US');
}

export function dollars(n: number): string {
  return n > 0 && n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** Adds one usage event to its (day, member, model) cell. */
export function addEvent(cells: Record<string, Cell>, e: CEvent): void {
  const day = dayOfMs(Number(e.timestamp));
  const email = e.userEmail.toLowerCase();
  const id = usageId(day, email, e.model);
  const c = cells[id] ?? { day, email, model: e.model, requests: 0, request_units: 0, input_tokens: 0, output_tokens: 0, cache_write_tokens: 0, cache_read_tokens: 0, cents: 0, kinds: [] };
  cells[id] = c;
  const t = e.tokenUsage ?? {};
  c.requests += 1;
  c.request_units += e.requestsCosts ?? 0;
  c.input_tokens += t.inputTokens ?? 0;
  c.output_tokens += t.outputTokens ?? 0;
  c.cache_write_tokens += t.cacheWriteTokens ?? 0;
  c.cache_read_tokens += t.cacheReadTokens ?? 0;
  c.cents += t.totalCents ?? 0;
  if (!c.kinds.includes(e.kind)) c.kinds = [...c.kinds, e.kind].sort();
}

/**
 * A (day, member, model) cell as its `ai_usage` record and searchable document: requests = events, input tokens =
 * input + cache writes + cache reads, cost = the events' `totalCents` ÷ 100 (token-based calls; request-based calls
 * count in `request_units`).
 */
export function cellResult(c: Cell, names: Readonly<Record<string, string>>): { record: UsageRecord; document: SourceDocument } {
  const id = usageId(c.day, c.email, c.model);
  const input = c.input_tokens + c.cache_write_tokens + c.cache_read_tokens;
  const usd = Math.round(c.cents * 10_000) / 1_000_000;
  const metadata = {
    provider: 'cursor',
    uncached_input_tokens: c.input_tokens,
    cache_write_tokens: c.cache_write_tokens,
    cache_read_tokens: c.cache_read_tokens,
    request_units: Math.round(c.request_units * 1000) / 1000,
    kinds: c.kinds,
  };
  const record: UsageRecord = {
    record_id: id,
    kind: 'usage',
    day: c.day,
    workspace: null,
    project: null,
    user: c.email,
    api_key: null,
    model: c.model,
    requests: c.requests,
    input_tokens: input,
    output_tokens: c.output_tokens,
    cost_usd: usd,
    metadata,
  };
  const who = names[c.email] ? `${names[c.email]} <${c.email}>` : c.email;
  const document: SourceDocument = {
    external_id: id,
    title: `Usage ${c.day}, ${c.email}, ${c.model}: ${c.requests} requests, ${tokens(input)} input tokens, ${tokens(c.output_tokens)} output tokens, ${dollars(usd)}`,
    content: [
      `Cursor usage on ${c.day} (UTC) by ${who}`,
      `Model: ${c.model}`,
      `Requests: ${c.requests} (${metadata.request_units} request units; ${c.kinds.join(', ')})`,
      `Input tokens: ${tokens(input)} (input ${tokens(c.input_tokens)}, cache writes ${tokens(c.cache_write_tokens)}, cache reads ${tokens(c.cache_read_tokens)})`,
      `Output tokens: ${tokens(c.output_tokens)}`,
      `Cost: ${dollars(usd)}`,
    ].join('\n'),
    url: `${DASHBOARD}?tab=usage`,
    author: c.email,
    document_type: 'ai_usage',
    created_at: `${c.day}T00:00:00.000Z`,
    updated_at: `${c.day}T00:00:00.000Z`,
    metadata: { ...metadata, day: c.day, user: c.email, model: c.model, requests: c.requests, input_tokens: input, output_tokens: c.output_tokens, cost_usd: usd },
  };
  return { record, document };
}

/** A member's daily activity (daily-usage-data): what they did with Cursor's AI features that day. */
export function activityToDocument(a: CDaily, names: Readonly<Record<string, string>>): SourceDocument | null {
  if (!a.isActive || !a.email) return null;
  const email = a.email.toLowerCase();
  const day = dayOfMs(a.date);
  const n = (v: number | undefined) => v ?? 0;
  const requests = n(a.composerRequests) + n(a.chatRequests) + n(a.agentRequests) + n(a.cmdkUsages);
  return {
    external_id: activityExternalId(day, email),
    title: `Cursor activity ${day}, ${email}: ${requests} AI requests${a.mostUsedModel ? `, mostly ${a.mostUsedModel}` : ''}`,
    content: [
      `Cursor activity on ${day} (UTC) by ${names[email] ? `${names[email]} <${email}>` : email}`,
      `AI requests: agent ${n(a.agentRequests)}, composer ${n(a.composerRequests)}, chat ${n(a.chatRequests)}, Cmd+K ${n(a.cmdkUsages)}, Bugbot ${n(a.bugbotUsages)}`,
      `Billing: included in subscription ${n(a.subscriptionIncludedReqs)}, usage-based ${n(a.usageBasedReqs)}, own API key ${n(a.apiKeyReqs)}`,
      `Most used model: ${a.mostUsedModel ?? 'none'}`,
      `Lines added ${n(a.totalLinesAdded)} (accepted from AI ${n(a.acceptedLinesAdded)}), deleted ${n(a.totalLinesDeleted)} (accepted ${n(a.acceptedLinesDeleted)})`,
      `Tab completions: shown ${n(a.totalTabsShown)}, accepted ${n(a.totalTabsAccepted)}; applies ${n(a.totalApplies)}, accepts ${n(a.totalAccepts)}, rejects ${n(a.totalRejects)}`,
      ...(a.clientVersion ? [`Client version: ${a.clientVersion}`] : []),
    ].join('\n'),
    url: `${DASHBOARD}?tab=analytics`,
    author: email,
    document_type: 'ai_activity',
    created_at: `${day}T00:00:00.000Z`,
    updated_at: `${day}T00:00:00.000Z`,
    metadata: { provider: 'cursor', day, user: email, requests, most_used_model: a.mostUsedModel ?? null, api_key_requests: n(a.apiKeyReqs), usage_based_requests: n(a.usageBasedReqs) },
  };
}

/** A team member, with their spend in the current billing cycle where `/teams/spend` lists them. */
export function memberToDocument(m: CMember, spend: CSpend | undefined, cycleStart: number | null): SourceDocument {
  const email = m.email.toLowerCase();
  const lines = [`Cursor team member: ${m.name}`, `Email: ${email}`, `Role: ${m.role}`];
  if (spend) {
    lines.push(`Spend this billing cycle${cycleStart ? ` (since ${dayOfMs(cycleStart)})` : ''}: ${dollars(spend.spendCents / 100)}`);
    if (spend.fastPremiumRequests !== undefined) lines.push(`Fast premium requests: ${spend.fastPremiumRequests}`);
    if (spend.hardLimitOverrideDollars) lines.push(`Spend limit: $${spend.hardLimitOverrideDollars}`);
  }
  return {
    external_id: memberExternalId(email),
    title: `Cursor member ${m.name} <${email}>`,
    content: lines.join('\n'),
    url: `${DASHBOARD}?tab=members`,
    document_type: 'ai_user',
    metadata: { provider: 'cursor', email, role: m.role, spend_cents: spend?.spendCents ?? null, cycle_start: cycleStart },
  };
}
