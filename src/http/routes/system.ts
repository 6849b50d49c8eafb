import { z } from 'zod';
import { VERSION } from '../../platform/version.ts';
import type { App } from '../app.ts';
import type { AppDeps } from '../deps.ts';

export async function systemRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/health',
    {
      config: { permission: 'public' },
      schema: {
        summary: 'Liveness and storage check',
        tags: ['system'],
        response: {
          200: z.object({ status: z.literal('ok'), version: z.string(), storage: z.enum(['pglite', 'postgres']) }),
        },
      },
    },
    async () => {
      await deps.db.query('SELECT 1');
      return { status: 'ok' as const, version: VERSION, storage: deps.db.kind };
    },
  );

  app.get(
    '/v1/openapi.json',
    { config: { permission: 'public' }, schema: { summary: 'This OpenAPI 3 document', tags: ['system'], hide: true } },
    async () => app.swagger(),
  );

  app.get('/metrics', { config: { permission: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    reply.type(app.metrics.registry.contentType);
    return app.metrics.registry.metrics();
  });
}
