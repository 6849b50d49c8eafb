import { type KindDefinition, validateWith } from '../kit/index.ts';
import { ADMIN_KEY_NEEDED, looksLikeAdminKey } from './client.ts';
import { type AnthropicCredentials, type AnthropicSettings, anthropicCredentials, anthropicSettings } from './schemas.ts';
import { type AnthropicCursor, type AnthropicPage, anthropicSync, probe } from './sync.ts';

/**
 * Anthropic (LLM provider): the organization's Admin API — the messages usage report by workspace, API key and model,
 * the cost report, members, workspaces, API keys and invites — for the AI-usage view (docs/ai-usage.md).
 */
export const anthropicKind: KindDefinition<AnthropicCredentials, AnthropicSettings, AnthropicCursor, AnthropicPage> = {
  type: 'anthropic',
  displayName: 'Anthropic',
  category: 'llm_provider',
  group: 'llm_providers',
  authTypes: ['api_key'],
  credentials: anthropicCredentials,
  settings: anthropicSettings,
  contentTypes: ['usage', 'cost', 'users', 'workspaces', 'api_keys', 'invites'],
  // Anthropic publishes no numeric quota for the Admin API; its Usage and Cost API guide asks for polling about once a
  // minute sustained, with short bursts for paginated downloads. A sync is a handful of requests, so 60/minute (the
  // bucket starts full for the burst) and Anthropic's 429 + retry-after, waited out by the kit.
  vendorLimits: { perMinute: 60 },
  hasUsableCredentials: (c) => Boolean(c.api_key),
  validate: validateWith(async (ctx) => {
    if (!looksLikeAdminKey(ctx.credentials.api_key)) {
      return { ok: false, message: `this is not an Admin API key: the connector needs ${ADMIN_KEY_NEEDED}` };
    }
    const first = await probe(ctx);
    const member = first.data[0];
    return member ? { account: `Anthropic organization (member ${member.email.toLowerCase()})` } : {};
  }),
  sync: anthropicSync,
};
