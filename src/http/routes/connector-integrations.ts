import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { completeOAuthCallback, enableWebhook, executeAction, OAUTH_CALLBACK_PATH, oauthUrlFor, receiveWebhook } from '../../connectors/index.ts';
import { AppError, Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

/** What connects a connector to its vendor beyond sync: the OAuth flow, signed webhook deliveries and actions. */
// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function connectorIntegrationRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/connectors/:connector_type/oauth-url',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary:
          'The provider authorization URL (state: single use, 10 min). Without connector_id the callback creates a new connector once the exchange succeeds (named display_name, else after the vendor account); with connector_id it connects or reconnects that connector (409 unless it is connecting, disconnected or in error)',
        tags: ['connectors'],
        params: z.object({ connector_type: z.string().min(1).max(64) }),
        querystring: z.object({ connector_id: z.string().min(1).max(200).optional(), display_name: z.string().trim().min(1).max(200).optional() }),
        response: { 200: z.object({ url: z.string(), state: z.string(), callback_url: z.string() }) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { connector_id: connectorId, display_name: displayName } = request.query;
      if (connectorId && displayName) {
        throw Errors.validation('display_name names a new connector: leave it out with connector_id (rename is not done here)', [{ path: 'display_name', message: 'only without connector_id' }]);
      }
      const r = await oauthUrlFor(deps, principal, { connectorType: request.params.connector_type, connectorId, displayName });
      return { ...r, callback_url: `${deps.config.publicUrl}${OAUTH_CALLBACK_PATH}` };
    },
  );

  app.get(
    OAUTH_CALLBACK_PATH,
    {
      // The provider redirects the user's browser here; the single-use state binds it to tenant and connector.
      config: { permission: 'public' },
      schema: {
        summary: 'OAuth 2.0 redirect target: exchanges the code and moves the connector to `connected` (creating it when the oauth-url named none)',
        tags: ['connectors'],
        querystring: z.object({ state: z.string().min(1).max(200), code: z.string().max(4096).optional(), error: z.string().max(500).optional() }),
        response: { 200: z.object({ status: z.literal('connected'), connector_id: z.string(), created: z.boolean() }) },
      },
    },
    async (request) => {
      const outcome = await completeOAuthCallback(deps, request.query, request.log);
      if (!outcome.ok) throw Errors.validation(outcome.reason, [{ path: 'state', message: outcome.reason }]);
      return { status: 'connected' as const, connector_id: outcome.connectorId, created: outcome.created };
    },
  );

  app.post(
    '/v1/connectors/:id/webhook',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Enable real-time sync: returns the delivery URL and a new signing secret (shown once) to configure at the vendor',
        tags: ['connectors'],
        params: z.object({ id: z.string().min(1).max(200) }),
        response: {
          // secret: null when the vendor issues it (Slack's signing secret, supplied in the credentials).
          201: z.object({ connector_id: z.string(), delivery_url: z.string(), secret: z.string().nullable(), content_type: z.string(), events: z.array(z.string()) }),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await enableWebhook(deps, principalOf(request), request.params.id)),
  );

  app.post(
    '/v1/connectors/:id/execute',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: "Run a natural-language intent as calls of the connector's actions (LLM tool calling, or the rule-based planner)",
        tags: ['connectors'],
        params: z.object({ id: z.string().min(1).max(200) }),
        body: z.object({ intent: z.string().trim().min(1).max(4000), context: z.record(z.string(), z.unknown()).optional(), dry_run: z.boolean().default(false) }).strict(),
        response: {
          200: z.object({
            connector_id: z.string(),
            intent: z.string(),
            planner: z.enum(['llm', 'rules']),
            dry_run: z.boolean(),
            calls: z.array(
              z.object({
                action: z.string(),
                parameters: z.record(z.string(), z.unknown()),
                status: z.enum(['planned', 'succeeded', 'failed']),
                result: z.record(z.string(), z.unknown()).optional(),
                error: z.string().optional(),
              }),
            ),
          }),
        },
      },
    },
    async (request) => executeAction(deps, principalOf(request), request.params.id, request.body),
  );

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // Signatures cover the exact bytes the vendor sent, so this route keeps the raw body.
    scope.removeContentTypeParser(['application/json']);
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(
      '/v1/connectors/:id/webhook/deliveries',
      {
        // Vendors send no API key: the signature (X-Hub-Signature-256, Linear-Signature, X-Slack-Signature) authenticates the delivery.
        config: { permission: 'public' },
        schema: {
          summary: 'Inbound vendor webhook delivery (signature-verified)',
          tags: ['connectors'],
          params: z.object({ id: z.string().min(1).max(200) }),
          response: {
            200: z.object({ challenge: z.string() }),
            202: z.object({ status: z.enum(['applied', 'ignored', 'accepted']), event: z.string(), upserted: z.number().int().optional(), deleted: z.number().int().optional(), reason: z.string().optional(), job_id: z.string().optional() }),
          },
        },
      },
      async (request, reply) => {
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(request.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v;
        const outcome = await receiveWebhook(deps, {
          connectorId: request.params.id,
          headers,
          rawBody: typeof request.body === 'string' ? request.body : '',
          log: deps.log.child({ reqId: request.id }),
        });
        if (outcome.status === 'rejected') throw new AppError('invalid_signature', 401, `webhook delivery rejected: ${outcome.reason}`);
        // Slack's url_verification: echo the challenge with 200.
        if (outcome.status === 'challenge') return reply.status(200).send({ challenge: outcome.challenge });
        return reply.status(202).send(outcome);
      },
    );
  });
}
