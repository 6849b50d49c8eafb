import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getWhoami } from './client.ts';
import { type CodaCredentials, type CodaSettings, codaCredentials, codaSettings } from './schemas.ts';
import { type CodaCursor, type CodaSyncPage, codaSync } from './sync.ts';

/**
 * Coda (document workspace): docs, canvas pages exported as Markdown, and table rows as `Column: value` text.
 * Auth is a Coda API token only: Coda documents no OAuth 2.0 for third-party use of its REST API (README § Auth).
 */
export const codaKind: KindDefinition<CodaCredentials, CodaSettings, CodaCursor, CodaSyncPage> = {
  type: 'coda',
  displayName: 'Coda',
  category: 'document_workspace',
  group: 'productivity',
  authTypes: ['api_key'],
  credentials: codaCredentials,
  settings: codaSettings,
  contentTypes: ['docs', 'pages', 'rows'],
  // "Reading data: 100 requests per 6 seconds" per user (writing 10 per 6 s, listing docs 4 per 6 s; coda.io/developers/apis/v1
  // § Rate Limiting): 15/s keeps reads at 90 per 6 s. Page exports (POST) and doc listings that exceed their stricter
  // limits are answered 429 and waited out.
  vendorLimits: { perSecond: 15 },
  hasUsableCredentials: (c) => Boolean(c.api_token),
  validate: validateWith(async (ctx) => {
    const me = await getWhoami(ctx);
    return { account: me.loginId ?? me.name ?? 'Coda user' };
  }),
  sync: codaSync,
};
