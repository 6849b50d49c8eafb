import { type KindDefinition, validateWith } from '../kit/index.ts';
import { type CursorCredentials, type CursorSettings, cursorCredentials, cursorSettings } from './schemas.ts';
import { type CursorCursor, type CursorPage, cursorSync, probe } from './sync.ts';

/**
 * Cursor (LLM provider: the AI code editor's team plan): the team Admin API — members and their spend, daily activity,
 * and usage events summed per day, member and model — for the AI-usage view (docs/ai-usage.md).
 */
export const cursorKind: KindDefinition<CursorCredentials, CursorSettings, CursorCursor, CursorPage> = {
  type: 'cursor',
  displayName: 'Cursor',
  category: 'llm_provider',
  group: 'llm_providers',
  authTypes: ['api_key'],
  credentials: cursorCredentials,
  settings: cursorSettings,
  contentTypes: ['usage', 'activity', 'members'],
  // Cursor's Admin API allows 20 requests per minute per team on most endpoints (docs: Admin API → Rate limits) and
  // aggregates usage hourly (polling more often gains nothing). A sync is a handful of requests; a 429 is waited out.
  vendorLimits: { perMinute: 20 },
  hasUsableCredentials: (c) => Boolean(c.api_key),
  validate: validateWith(async (ctx) => {
    const r = await probe(ctx);
    return { account: `Cursor team (${r.teamMembers.length} member${r.teamMembers.length === 1 ? '' : 's'})` };
  }),
  sync: cursorSync,
};
