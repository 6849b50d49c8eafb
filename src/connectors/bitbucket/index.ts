import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getUser } from './client.ts';
import { type BitbucketCredentials, type BitbucketSettings, bitbucketCredentials, bitbucketSettings } from './schemas.ts';
import { type BitbucketCursor, type BitbucketPage, bitbucketSync } from './sync.ts';
import { bitbucketWebhook } from './webhook.ts';

/** Bitbucket Cloud (code hosting): repositories, README files, pull requests and issues with comments; webhooks. */
export const bitbucketKind: KindDefinition<BitbucketCredentials, BitbucketSettings, BitbucketCursor, BitbucketPage> = {
  type: 'bitbucket',
  displayName: 'Bitbucket',
  category: 'code_hosting',
  group: 'developer_tools',
  authTypes: ['oauth2', 'api_key'],
  credentials: bitbucketCredentials,
  settings: bitbucketSettings,
  contentTypes: ['repositories', 'readme', 'pull_requests', 'issues'],
  // support.atlassian.com/bitbucket-cloud/docs/api-request-limits: 1,000 requests per hour per user (a rolling hour)
  // for repository data (/2.0/repositories/*, scaled up to 10,000 for large paid workspaces); 429 is waited out.
  vendorLimits: { perHour: 1000 },
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.username && c.app_password) || (c.email && c.api_token)),
  validate: validateWith(async (ctx) => {
    const me = await getUser(ctx);
    return { account: me.display_name ?? me.username ?? me.nickname ?? me.account_id ?? undefined };
  }),
  sync: bitbucketSync,
  webhook: bitbucketWebhook,
  oauth: {
    authorizeUrl: 'https://bitbucket.org/site/oauth2/authorize',
    tokenUrl: 'https://bitbucket.org/site/oauth2/access_token',
    scopes: ['repository', 'pullrequest', 'issue', 'account'],
  },
};
export { bitbucketSignature, verifyBitbucketDelivery } from './webhook.ts';
