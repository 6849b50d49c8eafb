import { type KindDefinition, validateWith } from '../kit/index.ts';
import { openaiGet } from './client.ts';
import { type OpenAICredentials, type OpenAISettings, openaiCredentials, openaiSettings } from './schemas.ts';
import { type OpenAICursor, type OpenAIPage, openaiSync } from './sync.ts';

/**
 * OpenAI (LLM provider, shadow-AI detection): the organization Admin API read with an Admin API key — usage reports
 * and costs as `ai_usage` rows and daily usage documents, audit log events, users, projects, project API keys
 * (redacted) and service accounts.
 */
export const openaiKind: KindDefinition<OpenAICredentials, OpenAISettings, OpenAICursor, OpenAIPage> = {
  type: 'openai',
  displayName: 'OpenAI',
  category: 'llm_provider',
  group: 'llm_providers',
  authTypes: ['api_key'],
  credentials: openaiCredentials,
  settings: openaiSettings,
  contentTypes: ['usage', 'costs', 'audit_logs', 'users', 'projects', 'api_keys', 'service_accounts'],
  // OpenAI publishes no request quota for the Admin API endpoints: limits are per organization and reported on every
  // answer in `x-ratelimit-limit-requests` / `-remaining-requests` / `-reset-requests`, a 429 saying when to retry
  // (platform.openai.com/docs/guides/rate-limits, "Debugging requests"). A sync of 30 days costs about 20 calls
  // (8 reports over one 31-day page, the directory, the audit log); 100 a minute is a self-imposed ceiling, and a 429
  // is waited out by OpenAI's headers (retry-after-ms, Retry-After, x-ratelimit-reset-requests).
  vendorLimits: { perMinute: 100 },
  hasUsableCredentials: (c) => Boolean(c.api_key),
  validate: validateWith(async (ctx) => {
    // Any admin endpoint refuses a project or user key (401/403): the answer names the admin key that is needed.
    const r = await openaiGet<{ data?: unknown[] }>(ctx, '/organization/projects', { limit: 1 });
    const org = r.organization ?? ctx.settings.organization;
    return { account: org ? `OpenAI organization ${org}` : 'OpenAI organization (Admin API key)' };
  }),
  sync: openaiSync,
};
