import { z } from 'zod';
import { issueApiKey, listApiKeys, PERMISSIONS, revokeApiKeyAs } from '../../access/index.ts';
import { looksLikeEmail } from '../../identity/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const keyRecord = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  key_prefix: z.string().describe('first characters of the key, to recognise it'),
  permissions: z.array(z.enum(PERMISSIONS)),
  identity: z.object({ email: z.string() }).nullable().describe('the person the key reads as; null = a service key (public documents, or act_as per request)'),
  created_by: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export async function apiKeyRoutes(app: App, deps: AppDeps): Promise<void> {
  app.post(
    '/v1/api-keys',
    {
      // An admin creates any key; a signed-in person (SSO session) creates keys bound to themself, within their own permissions.
      config: { permission: 'authenticated' },
      schema: {
        summary: 'Create an API key; the plaintext key is returned once and never stored',
        description:
          "`identity: {email}` binds the key to a person: it reads what that person may read. An admin binds anyone; an SSO session binds only itself (the default for a session's keys) and grants at most its own permissions, never `admin` or `act_as`.",
        tags: ['access'],
        body: z.object({
          name: z.string().trim().min(1).max(200),
          permissions: z.array(z.enum(PERMISSIONS)).min(1),
          identity: z.object({ email: z.string().trim().max(320).refine(looksLikeEmail, 'an email address') }).strict().nullable().optional(),
        }).strict(),
        response: { 201: keyRecord.extend({ key: z.string().describe('the plaintext key, shown only in this response') }) },
      },
    },
    async (request, reply) => {
      const created = await issueApiKey(deps.db, principalOf(request), request.body);
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
    async (request) => revokeApiKeyAs(deps.db, principalOf(request), request.params.id),
  );
}
