import fastifySwaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import { takeBackup } from '../../access/index.ts';
import { API_REFERENCE_PREFIX } from '../operation-ids.ts';
import { VERSION } from '../../platform/version.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
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
    '/v1/admin/backup',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'A backup of the whole embedded data folder (a tar file; `atrium backup <file>` saves it, `atrium restore <file>` loads it)',
        description: 'Only for an admin credential of tenant `default`. Taken between statements while the service runs. The backup holds every tenant\'s data and the generated secret key: keep it as safe as the folder. With PostgreSQL storage this is 409: back up with pg_dump.',
        tags: ['system'],
        produces: ['application/x-tar'],
      },
    },
    async (request, reply) => {
      const tar = await takeBackup(deps.db, principalOf(request));
      return reply.type('application/x-tar').header('content-disposition', 'attachment; filename="atrium-backup.tar"').send(tar);
    },
  );

  app.get(
    '/v1/openapi.json',
    { config: { permission: 'public' }, schema: { summary: 'This OpenAPI 3 document', tags: ['system'], hide: true } },
    async () => app.swagger(),
  );

  // The API reference, rendered in the browser from the document above by Swagger UI's bundled files: nothing is
  // fetched from the network (no validator badge, no CDN). Public like the document it renders.
  await app.register(fastifySwaggerUi, {
    routePrefix: API_REFERENCE_PREFIX,
    validatorUrl: false,
    staticCSP: "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'",
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, displayOperationId: true, tryItOutEnabled: false },
    uiHooks: {},
  });

  app.get('/metrics', { config: { permission: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    reply.type(app.metrics.registry.contentType);
    return app.metrics.registry.metrics();
  });
}
