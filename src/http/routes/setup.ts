import { z } from 'zod';
import { redeemSetupCode, setupRequired } from '../../access/index.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { underFailureThrottle } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

/**
 * First-run setup (README "First run"): while the instance has no API key, the start banner shows a one-time code
 * and the console's /setup page spends it on the first admin key. Both routes are public; a wrong code counts as a
 * failed authentication (the per-client throttle applies).
 */
export async function setupRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/setup',
    {
      config: { permission: 'public' },
      schema: {
        summary: 'Whether the instance still needs its first admin key (no API key exists)',
        tags: ['access'],
        response: { 200: z.object({ setup_required: z.boolean() }) },
      },
    },
    async () => ({ setup_required: await setupRequired(deps.db) }),
  );

  app.post(
    '/v1/setup',
    {
      config: { permission: 'public' },
      schema: {
        summary: "Creates the instance's first admin key (tenant default) with the start banner's one-time setup code; the key is shown once",
        tags: ['access'],
        body: z
          .object({
            code: z.string().min(1).max(200).describe('the one-time code from the start banner (valid 1 h, once)'),
            name: z.string().trim().min(1).max(200).default('first admin').describe("the key's name"),
          })
          .strict(),
        response: { 201: z.object({ id: z.string(), key: z.string(), name: z.string(), tenant_id: z.string(), permissions: z.array(z.string()) }) },
      },
    },
    async (request, reply) => {
      const { code, name } = request.body;
      const created = await underFailureThrottle(deps, request.ip, () => redeemSetupCode(deps.db, { code, name, now: deps.clock.now() }));
      if (!created) {
        throw Errors.unauthenticated('this setup code is wrong, used or expired, or the instance already has a key: restart the service for a new code, or sign in with a key');
      }
      deps.log.info({ keyId: created.id }, 'first admin key created with the setup code');
      return reply.code(201).send({ id: created.id, key: created.key, name: created.name, tenant_id: created.tenant_id, permissions: [...created.permissions] });
    },
  );
}
