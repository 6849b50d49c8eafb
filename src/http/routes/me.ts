import { z } from 'zod';
import { PERMISSIONS } from '../../access/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { readerView } from '../view.ts';

/**
 * Who the caller is: the web console uses it to check a key or an SSO session and to pick its pages; `view` is
 * whose documents retrieval answers for this request (X-Atrium-Act-As and bypass_acl taken into account).
 */
export async function meRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/me',
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'The calling principal: tenant, credential kind, user, permissions, and the identity and groups retrieval sees',
        tags: ['access'],
        response: {
          200: z.object({
            tenant_id: z.string(),
            kind: z.enum(['api_key', 'session', 'bootstrap', 'oauth']),
            id: z.string(),
            user_id: z.string(),
            permissions: z.array(z.enum(PERMISSIONS)),
            identity: z.object({ email: z.string() }).nullable().describe("the credential's own person; null for a service key"),
            view: z.object({
              kind: z.enum(['person', 'service', 'bypass']).describe('person: that email’s documents; service: documents everyone may read; bypass: all (admin, audited)'),
              email: z.string().nullable(),
              acting: z.boolean().describe('an act_as credential named the person (X-Atrium-Act-As)'),
              idp_groups: z.array(z.string()),
              vendor_groups: z.array(z.string()),
              vendor_accounts: z.array(z.string()),
              permission_groups: z.array(z.string()).describe('ACL groups the credential’s own permissions grant: `atrium:ai_usage` with ai_usage:read or admin (docs/ai-usage.md)'),
            }),
          }),
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const v = await readerView(deps, request);
      return {
        tenant_id: p.tenantId,
        kind: p.kind,
        id: p.id,
        user_id: p.userId,
        permissions: PERMISSIONS.filter((x) => p.permissions.has(x)),
        identity: p.email ? { email: p.email } : null,
        view: { kind: v.kind, email: v.email, acting: v.acting, idp_groups: [...v.idp_groups], vendor_groups: [...v.vendor_groups], vendor_accounts: [...v.vendor_accounts], permission_groups: [...v.permission_groups] },
      };
    },
  );
}
