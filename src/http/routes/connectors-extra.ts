import { z } from 'zod';
import { completeOAuth, createOAuthUrl, getConnector, OAUTH_CALLBACK_PATH } from '../../connectors/index.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

/** OAuth, webhooks and actions for connectors. */
export async function connectorExtraRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/connectors/:connector_type/oauth-url',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'The provider authorization URL for a connector in `connecting`/`disconnected`/`error` (state: single use, 10 min)',
        tags: ['connectors'],
        params: z.object({ connector_type: z.string().min(1).max(64) }),
        querystring: z.object({ connector_id: z.string().min(1).max(200) }),
        response: { 200: z.object({ url: z.string(), state: z.string(), callback_url: z.string() }) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const c = await getConnector(deps.db, principal.tenantId, request.query.connector_id);
      if (!c) throw Errors.notFound('connector', request.query.connector_id);
      if (c.type !== request.params.connector_type) {
        throw Errors.validation(`connector '${c.id}' is a '${c.type}' connector, not '${request.params.connector_type}'`, [
          { path: 'connector_type', message: 'does not match the connector' },
        ]);
      }
      const r = await createOAuthUrl(deps, { tenantId: principal.tenantId, connectorId: c.id, connectorType: c.type });
      return { ...r, callback_url: `${deps.config.publicUrl}${OAUTH_CALLBACK_PATH}` };
    },
  );

  app.get(
    OAUTH_CALLBACK_PATH,
    {
      // The provider redirects the user's browser here; the single-use state binds it to tenant and connector.
      config: { permission: 'public' },
      schema: {
        summary: 'OAuth 2.0 redirect target: exchanges the code and moves the connector to `connected`',
        tags: ['connectors'],
        querystring: z.object({ state: z.string().min(1).max(200), code: z.string().max(4096).optional(), error: z.string().max(500).optional() }),
        response: { 200: z.object({ status: z.literal('connected'), connector_id: z.string() }) },
      },
    },
    async (request) => {
      const outcome = await completeOAuth(deps, request.query);
      if (!outcome.ok) throw Errors.validation(outcome.reason, [{ path: 'state', message: outcome.reason }]);
      return { status: 'connected' as const, connector_id: outcome.connectorId };
    },
  );
}
