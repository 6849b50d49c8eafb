import { z } from 'zod';
import { createApiKey, listApiKeys, PERMISSIONS, revokeApiKey } from '../../access/index.ts';
import { recordAudit } from '../../audit/index.ts';
import { Errors } from '../../platform/errors.ts';
import { Ops } from '../../platform/operations.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const keyRecord = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  key_prefix: z.string().describe('first characters of the key, to recognise it'),
  permissions: z.array(z.enum(PERMISSIONS)),
  created_by: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export async function apiKeyRoutes(app: App, deps: AppDeps): Promise<void> {
  app.post(
    '/v1/api-keys',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Create an API key; the plaintext key is returned once and never stored',
        tags: ['access'],
        body: z.object({
          name: z.string().trim().min(1).max(200),
          permissions: z.array(z.enum(PERMISSIONS)).min(1),
        }).strict(),
        response: { 201: keyRecord.extend({ key: z.string().describe('the plaintext key, shown only in this response') }) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const created = await createApiKey(deps.db, {
        tenantId: principal.tenantId,
        name: request.body.name,
        permissions: request.body.permissions,
        createdBy: principal.id,
      });
      await recordAudit(deps.db, {
        tenantId: principal.tenantId,
        action: Ops.apiKeyCreated,
        actorId: principal.id,
        userId: principal.userId,
        details: { key_id: created.id, name: created.name, permissions: created.permissions },
      });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/v1/api-keys',
    {
      config: { permission: 'admin' },
      schema: { summary: "List the tenant's API keys (never the keys themselves)", tags: ['access'], response: { 200: z.object({ api_keys: z.array(keyRecord) }) } },
    },
    async (request) => ({ api_keys: await listApiKeys(deps.db, principalOf(request).tenantId) }),
  );

  app.delete(
    '/v1/api-keys/:id',
    {
      config: { permission: 'admin' },
      schema: { summary: 'Revoke an API key', tags: ['access'], params: z.object({ id: z.string().min(1).max(200) }), response: { 200: keyRecord } },
    },
    async (request) => {
      const principal = principalOf(request);
      const revoked = await revokeApiKey(deps.db, principal.tenantId, request.params.id);
      if (!revoked) throw Errors.notFound('api key', request.params.id);
      await recordAudit(deps.db, {
        tenantId: principal.tenantId,
        action: Ops.apiKeyRevoked,
        actorId: principal.id,
        userId: principal.userId,
        details: { key_id: revoked.id, name: revoked.name },
      });
      return revoked;
    },
  );
}
