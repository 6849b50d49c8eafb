import { z } from 'zod';
import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode, UsageRecord } from '../kit/index.ts';
import { type AdminList, adminGet, type Report } from './client.ts';
import {
  type AApiKey,
  type ACostResult,
  type AInvite,
  type AUsageResult,
  type AUser,
  type AWorkspace,
  apiKeyExternalId,
  apiKeyToDocument,
  costDocument,
  costRecord,
  type Directory,
  inviteExternalId,
  inviteToDocument,
  usageResult,
  userExternalId,
  userToDocument,
  workspaceExternalId,
  workspaceToDocument,
} from './map.ts';
import type { AnthropicCredentials, AnthropicSettings } from './schemas.ts';

type Ctx = SourceContext<AnthropicCredentials, AnthropicSettings>;

/**
 * The sync: the directory (workspaces, members, API keys, invites: every sync lists them whole, an incremental one
 * deletes what is no longer listed), then the messages usage report and the cost report over a window of complete UTC
 * days. A full sync reads the last `lookback_days`; an incremental one from `overlap_days` before the cursor (the last
 * complete day read) to yesterday: Anthropic revises recent buckets, and a re-read replaces documents and usage records
 * by their stable ids.
 */
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const anthropicCursor = z.object({ last_complete_day: day });
export type AnthropicCursor = z.infer<typeof anthropicCursor>;

const PHASES = ['workspaces', 'users', 'api_keys', 'invites', 'usage', 'cost'] as const;
type Phase = (typeof PHASES)[number];

export const anthropicPage = z.object({
  mode: z.enum(['full', 'incremental']),
  phase: z.enum(PHASES),
  /** `after_id` of a directory listing, or the report's `next_page` token. */
  token: z.string().nullable(),
  since: day.nullable(),
  /** The window of days read, `[from, to)`; null until the first page computes it from the clock. */
  from: day.nullable(),
  to: day.nullable(),
  workspaces: z.record(z.string(), z.string()),
  users: z.record(z.string(), z.string()),
  keys: z.record(z.string(), z.object({ name: z.string(), hint: z.string().nullable(), workspace_id: z.string().nullable(), created_by: z.string().nullable() })),
  invites: z.array(z.string()),
});
export type AnthropicPage = z.infer<typeof anthropicPage>;

/** The directory listings' page size (the Admin API allows 1 to 1000). */
const LIST_LIMIT = 100;
/** Day buckets per report page (the documented maximum for `bucket_width=1d`). */
const BUCKETS = 31;

export function addDays(d: string, n: number): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

const dir = (p: AnthropicPage): Directory => ({ workspaces: p.workspaces, users: p.users, keys: p.keys });

function nextPhase(p: AnthropicPage): AnthropicPage | null {
  const phase: Phase | undefined = PHASES[PHASES.indexOf(p.phase) + 1];
  return phase ? { ...p, phase, token: null } : null;
}

const cursorOf = (p: AnthropicPage): AnthropicCursor | null => (p.to ? { last_complete_day: addDays(p.to, -1) } : p.since ? { last_complete_day: p.since } : null);

/** Stored documents under `prefix` that this listing no longer has (an incremental sync's deletions). */
async function vanished(ctx: Ctx, p: AnthropicPage, prefix: string, listed: Iterable<string>): Promise<string[]> {
  if (p.mode === 'full') return [];
  const keep = new Set(listed);
  return (await ctx.stored(prefix)).map((d) => d.external_id).filter((id) => !keep.has(id));
}

async function readList<T extends { id: string }>(ctx: Ctx, p: AnthropicPage, path: string, query: Record<string, string | boolean> = {}): Promise<{ items: T[]; after: string | null }> {
  const r = await adminGet<AdminList<T>>(ctx, path, { ...query, limit: LIST_LIMIT, after_id: p.token ?? undefined });
  return { items: r.data, after: r.has_more && r.last_id ? r.last_id : null };
}

async function readWorkspaces(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  const { items, after } = await readList<AWorkspace>(ctx, p, 'v1/organizations/workspaces', { include_archived: true });
  const next = { ...p, workspaces: { ...p.workspaces, ...Object.fromEntries(items.map((w) => [w.id, w.name])) } };
  const documents = items.map(workspaceToDocument);
  if (after) return { documents, next: { ...next, token: after }, cursor: cursorOf(p) };
  const deleted = await vanished(ctx, p, 'workspace:', Object.keys(next.workspaces).map(workspaceExternalId));
  return { documents, deleted, next: nextPhase(next), cursor: cursorOf(p) };
}

async function readUsers(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  const { items, after } = await readList<AUser>(ctx, p, 'v1/organizations/users');
  const next = { ...p, users: { ...p.users, ...Object.fromEntries(items.map((u) => [u.id, u.email.toLowerCase()])) } };
  const documents = items.map(userToDocument);
  const identities = { accounts: items.map((u) => ({ account_id: `anthropic:${u.id}`, email: u.email.toLowerCase(), display_name: u.name })) };
  if (after) return { documents, identities, next: { ...next, token: after }, cursor: cursorOf(p) };
  const deleted = await vanished(ctx, p, 'user:', Object.keys(next.users).map(userExternalId));
  return { documents, identities, deleted, next: nextPhase(next), cursor: cursorOf(p) };
}

async function readApiKeys(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  const { items, after } = await readList<AApiKey>(ctx, p, 'v1/organizations/api_keys');
  const keys = { ...p.keys };
  for (const k of items) keys[k.id] = { name: k.name, hint: k.partial_key_hint, workspace_id: k.workspace_id, created_by: k.created_by?.type === 'user' ? k.created_by.id : null };
  const next = { ...p, keys };
  const documents = items.map((k) => apiKeyToDocument(k, dir(next)));
  if (after) return { documents, next: { ...next, token: after }, cursor: cursorOf(p) };
  const deleted = await vanished(ctx, p, 'api_key:', Object.keys(keys).map(apiKeyExternalId));
  return { documents, deleted, next: nextPhase(next), cursor: cursorOf(p) };
}

async function readInvites(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  if (!ctx.settings.include_invites) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
  const { items, after } = await readList<AInvite>(ctx, p, 'v1/organizations/invites');
  const next = { ...p, invites: [...p.invites, ...items.map((i) => i.id)] };
  const documents = items.map(inviteToDocument);
  if (after) return { documents, next: { ...next, token: after }, cursor: cursorOf(p) };
  const deleted = await vanished(ctx, p, 'invite:', next.invites.map(inviteExternalId));
  return { documents, deleted, next: nextPhase(next), cursor: cursorOf(p) };
}

/** The window of complete UTC days to read, `[from, to)`: `to` is today (its bucket is still filling). */
function windowOf(ctx: Ctx, p: AnthropicPage): { from: string; to: string } {
  if (p.from && p.to) return { from: p.from, to: p.to };
  const to = ctx.now.toISOString().slice(0, 10);
  const earliest = addDays(to, -ctx.settings.lookback_days);
  const resume = p.mode === 'incremental' && p.since ? addDays(p.since, 1 - ctx.settings.overlap_days) : earliest;
  // The resume day clamped into [earliest, to] (ISO days sort as strings).
  const from = [earliest, resume, to].sort()[1] ?? earliest;
  return { from, to };
}

function reportQuery(p: { from: string; to: string }, token: string | null, groupBy: readonly string[]) {
  return { starting_at: `${p.from}T00:00:00Z`, ending_at: `${p.to}T00:00:00Z`, bucket_width: '1d', group_by: groupBy, limit: BUCKETS, page: token ?? undefined };
}

async function readUsage(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  const w = windowOf(ctx, p);
  const at = { ...p, ...w };
  if (w.from >= w.to) return { documents: [], next: nextPhase(at), cursor: cursorOf(at) };
  const r = await adminGet<Report<AUsageResult>>(ctx, 'v1/organizations/usage_report/messages', reportQuery(w, p.token, ['workspace_id', 'api_key_id', 'model']));
  const documents: SourceDocument[] = [];
  const usage: UsageRecord[] = [];
  for (const bucket of r.data) {
    const d = bucket.starting_at.slice(0, 10);
    for (const result of bucket.results) {
      const m = usageResult(d, result, dir(at));
      documents.push(m.document);
      usage.push(m.record);
    }
  }
  const next = r.has_more && r.next_page ? { ...at, token: r.next_page } : nextPhase(at);
  return { documents, usage, next, cursor: cursorOf(at) };
}

async function readCost(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  const w = windowOf(ctx, p);
  const at = { ...p, ...w };
  if (!ctx.settings.include_cost || w.from >= w.to) return { documents: [], next: nextPhase(at), cursor: cursorOf(at) };
  const r = await adminGet<Report<ACostResult>>(ctx, 'v1/organizations/cost_report', reportQuery(w, p.token, ['workspace_id', 'description']));
  const documents: SourceDocument[] = [];
  const usage: UsageRecord[] = [];
  for (const bucket of r.data) {
    const d = bucket.starting_at.slice(0, 10);
    const byWorkspace = new Map<string | null, ACostResult[]>();
    for (const result of bucket.results) {
      usage.push(costRecord(d, result, dir(at)));
      byWorkspace.set(result.workspace_id, [...(byWorkspace.get(result.workspace_id) ?? []), result]);
    }
    for (const [ws, lines] of byWorkspace) documents.push(costDocument(d, ws, lines, dir(at)));
  }
  const next = r.has_more && r.next_page ? { ...at, token: r.next_page } : nextPhase(at);
  return { documents, usage, next, cursor: cursorOf(at) };
}

function readPage(ctx: Ctx, p: AnthropicPage): Promise<Page<AnthropicPage, AnthropicCursor>> {
  switch (p.phase) {
    case 'workspaces':
      return readWorkspaces(ctx, p);
    case 'users':
      return readUsers(ctx, p);
    case 'api_keys':
      return readApiKeys(ctx, p);
    case 'invites':
      return readInvites(ctx, p);
    case 'usage':
      return readUsage(ctx, p);
    case 'cost':
      return readCost(ctx, p);
  }
}

/** Validation: the organization's first member (an Admin-only endpoint). */
export async function probe(ctx: Ctx): Promise<AdminList<AUser>> {
  return adminGet<AdminList<AUser>>(ctx, 'v1/organizations/users', { limit: 1 });
}

export const anthropicSync: SyncCapability<AnthropicCredentials, AnthropicSettings, AnthropicCursor, AnthropicPage> = {
  cursorSchema: anthropicCursor,
  pageSchema: anthropicPage,
  start(mode: SyncMode, since: AnthropicCursor | null): AnthropicPage {
    return {
      mode,
      phase: 'workspaces',
      token: null,
      since: mode === 'incremental' && since ? since.last_complete_day : null,
      from: null,
      to: null,
      workspaces: {},
      users: {},
      keys: {},
      invites: [],
    };
  },
  readPage,
};
