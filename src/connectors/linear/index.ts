import type { KindDefinition } from '../kit/index.ts';
import { linearActions } from './actions.ts';
import { linearRequest, mapLinearError } from './client.ts';
import { type LinearCredentials, type LinearSettings, linearCredentials, linearSettings } from './schemas.ts';
import { type LinearCursor, type LinearPage, linearSync } from './sync.ts';
import { linearWebhook } from './webhook.ts';

/** Linear (issue tracker): issues, projects, cycles, documents, milestones, comments, attachments; webhooks; issue actions. */
export const linearKind: KindDefinition<LinearCredentials, LinearSettings, LinearCursor, LinearPage> = {
  type: 'linear',
  displayName: 'Linear',
  category: 'issue_tracker',
  group: 'developer_tools',
  authTypes: ['oauth2', 'api_key'],
  credentials: linearCredentials,
  settings: linearSettings,
  contentTypes: ['issues', 'projects', 'cycles', 'documents', 'project_milestones', 'comments', 'attachments'],
  // Linear meters API keys per hour (plus query complexity); the agreed per-connector ceiling is 100 requests per minute.
  vendorLimits: { perMinute: 100 },
  hasUsableCredentials: (c) => Boolean(c.api_key ?? c.access_token),
  // Linear OAuth 2.0 (linear.app/developers/oauth-2-0-authentication): comma-separated scopes, PKCE supported.
  oauth: {
    authorizeUrl: 'https://linear.app/oauth/authorize',
    tokenUrl: 'https://api.linear.app/oauth/token',
    scopes: ['read', 'write'],
    scopeSeparator: ',',
    extraAuthorizeParams: { prompt: 'consent' },
  },
  async validate(ctx) {
    try {
      const r = await linearRequest<{ viewer: { name: string; email?: string | null }; organization: { name: string } }>(ctx, 'query Viewer { viewer { id name email } organization { name } }');
      return { ok: true, account: `${r.viewer.email ?? r.viewer.name}@${r.organization.name}` };
    } catch (err) {
      const mapped = mapLinearError(err);
      if (mapped instanceof Error && mapped.name === 'VendorAuthError') return { ok: false, message: mapped.message };
      throw mapped;
    }
  },
  sync: linearSync,
  webhook: linearWebhook,
  actions: linearActions,
};
export { linearSignature, verifyLinearDelivery } from './webhook.ts';
