import { z } from 'zod';
import { PERMISSIONS } from '../../access/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

/** Who the caller is: the web console uses it to check a key or an SSO session and to pick its pages. */
export async function meRoutes(app: App, _deps: AppDeps): Promise<void> {
  app.get(
    '/v1/me',
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'The calling principal: tenant, credential kind, user and permissions',
        tags: ['access'],
        response: {
          200: z.object({
            tenant_id: z.string(),
            kind: z.enum(['api_key', 'session', 'bootstrap']),
            id: z.string(),
            user_id: z.string(),
            permissions: z.array(z.enum(PERMISSIONS)),
          }),
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { tenant_id: p.tenantId, kind: p.kind, id: p.id, user_id: p.userId, permissions: PERMISSIONS.filter((x) => p.permissions.has(x)) };
    },
  );
}
