import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type PipedriveCredentials, type PipedriveSettings, pipedriveCredentials, pipedriveSettings } from './schemas.ts';
import { type PipedriveCursor, type PipedrivePage, pipedriveSync } from './sync.ts';

/** Pipedrive CRM (API v2, v1 for notes): organizations, persons, deals, activities and notes. */
export const pipedriveKind: KindDefinition<PipedriveCredentials, PipedriveSettings, PipedriveCursor, PipedrivePage> = {
  type: 'pipedrive',
  displayName: 'Pipedrive',
  category: 'crm',
  group: 'crm',
  authTypes: ['oauth2', 'api_key'],
  credentials: pipedriveCredentials,
  settings: pipedriveSettings,
  contentTypes: ['organizations', 'persons', 'deals', 'activities', 'notes'],
  // pipedrive.readme.io/docs/core-api-concepts-rate-limiting: burst limits per 2-second window per token, from 20
  // requests (Essential/Lite, API token) up to 480 (Enterprise, OAuth), and a daily token budget per company (30,000
  // base tokens × plan multiplier × seats; a list call costs up to 20 tokens, less on v2). The bucket keeps the
  // smallest burst limit (10/s) and 1,000 requests an hour (lower it with requests_per_hour on a small plan); a 429 is
  // waited out by Retry-After or x-ratelimit-reset.
  vendorLimits: { perSecond: 10, perHour: 1_000 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.api_token),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    const domain = me.company_domain?.toLowerCase();
    const patch = domain && ctx.settings.company_domain !== domain ? { company_domain: domain } : undefined;
    const who = me.email?.toLowerCase() ?? me.name ?? `user ${me.id}`;
    return { account: `${who} at ${me.company_name ?? domain ?? 'Pipedrive'}`, ...(patch ? { settings: patch } : {}) };
  }),
  sync: pipedriveSync,
  oauth: {
    authorizeUrl: 'https://oauth.pipedrive.com/oauth/authorize',
    tokenUrl: 'https://oauth.pipedrive.com/oauth/token',
    // Pipedrive grants the scopes configured on the app (Developer Hub); the list here documents what the app needs.
    scopes: ['base', 'deals:read', 'contacts:read', 'activities:read'],
    tokenFields: ['api_domain'],
  },
};
