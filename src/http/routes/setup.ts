import { z } from 'zod';
import { redeemSetupCode, setupRequired } from '../../access/index.ts';
import { recordAudit } from '../../audit/index.ts';
import { Errors } from '../../platform/errors.ts';
import { Ops } from '../../platform/operations.ts';
import type { App } from '../app.ts';
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
      const throttle = deps.authFailures;
      const now = deps.clock.now();
      const blocked = throttle?.blockedFor(request.ip, now.getTime()) ?? 0;
      if (blocked > 0) throw Errors.authThrottled(blocked);
      let created: Awaited<ReturnType<typeof redeemSetupCode>>;
      try {
        created = await redeemSetupCode(deps.db, { code: request.body.code, name: request.body.name, now });
      } catch (err) {
        throttle?.fail(request.ip, now.getTime());
        throw err;
      }
      await recordAudit(deps.db, { tenantId: created.tenant_id, action: Ops.apiKeyCreated, actorId: 'setup', userId: 'first-run setup', details: { key_id: created.id, via: 'setup_code' } });
      deps.log.info({ keyId: created.id }, 'first admin key created with the setup code');
      return reply.code(201).send({ id: created.id, key: created.key, name: created.name, tenant_id: created.tenant_id, permissions: [...created.permissions] });
    },
  );
}
