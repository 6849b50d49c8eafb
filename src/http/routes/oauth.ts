import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PERMISSIONS } from '../../access/index.ts';
import {
  AUTHORIZATION_SERVER_PATH,
  authenticateClient,
  authorizationServerMetadata,
  bearerChallenge,
  exchangeCode,
  listGrantsFor,
  OAUTH_PATHS,
  OAuthError,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
  refreshTokens,
  registerClient,
  revokeGrantAs,
  revokeToken,
  type TokenForm,
} from '../../auth/oauth-server/index.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { bearerToken, principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { oauthConsentRoutes } from './oauth-consent.ts';

const TAGS = ['oauth'];
const MCP_PATH = '/v1/expose/mcp';
const MAX_BODY_BYTES = 16 * 1024;

/** Browser-based MCP clients call the metadata, registration, token and revocation endpoints cross-origin: no cookies are involved. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-max-age': '600',
};

type OAuthHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** A client-facing OAuth endpoint: an `OAuthError` it throws is answered as RFC 6749 error JSON (anything else goes on to the error handler). */
function oauthHandler(fn: OAuthHandler): OAuthHandler {
  return async (request, reply) => {
    try {
      return await fn(request, reply);
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      return reply.code(err.status).headers({ ...CORS, ...err.headers, 'cache-control': 'no-store' }).send(err.body());
    }
  };
}

/** A form body as a string map; an OAuth endpoint answers anything else with invalid_request. */
function formOf(request: FastifyRequest): Record<string, string> {
  const ct = String(request.headers['content-type'] ?? '');
  if (!ct.startsWith('application/x-www-form-urlencoded') || typeof request.body !== 'string') {
    throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
  }
  const params = new URLSearchParams(request.body);
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    if (k in out) throw new OAuthError('invalid_request', `parameter ${k} is repeated`);
    if (v.length > 4000 || v.includes('\u0000')) throw new OAuthError('invalid_request', `parameter ${k} is invalid`);
    out[k] = v;
  }
  return out;
}

/** RFC 6749 §5.2 error JSON: what every OAuth endpoint answers on 400 / 401 (not the platform's error shape). */
const oauthErrorBody = z.object({ error: z.string(), error_description: z.string() });
const OAUTH_ERRORS = { 400: oauthErrorBody, 401: oauthErrorBody };

const grantView = z.object({
  grant_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_uri: z.string(),
  subject: z.object({ kind: z.enum(['user', 'api_key']), id: z.string(), email: z.string().nullable() }),
  permissions: z.array(z.enum(PERMISSIONS)),
  scope: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
});

/** OAuth 2.1 authorization server for the MCP endpoint (docs/mcp.md "Sign in from Claude/ChatGPT"). */
// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function oauthRoutes(root: App, deps: AppDeps): Promise<void> {
  const publicUrl = deps.config.publicUrl;
  const resource = `${publicUrl}${MCP_PATH}`;
  const resourceMetadataUrl = `${publicUrl}${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;
  const oauthDeps = { db: deps.db, log: deps.log, clock: deps.clock };

  // A 401 from the MCP endpoint (and its REST wrappers) points the client at the protected-resource metadata
  // (RFC 9728 §5.1). Registered on the root before the MCP routes, so their scopes inherit it.
  root.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && (request.url === MCP_PATH || request.url.startsWith(`${MCP_PATH}/`) || request.url.startsWith(`${MCP_PATH}?`))) {
      reply.header('www-authenticate', bearerChallenge(resourceMetadataUrl, bearerToken(request) ? 'invalid_token' : undefined));
    }
    return payload;
  });

  // The token and revocation endpoints: a form body and the client's authentication (RFC 6749 §2.3).
  const formAndClient = async (request: FastifyRequest) => {
    const form = formOf(request);
    const client = await authenticateClient(deps.db, { authorization: request.headers.authorization, clientId: form.client_id, clientSecret: form.client_secret });
    return { form, client };
  };

  const limitByPeer = async (request: FastifyRequest) => {
    const wait = deps.rateLimiter.take(`oauth-ip:${request.ip}`, deps.clock.now().getTime());
    if (wait > 0) throw Errors.rateLimited(wait);
  };

  const prm = protectedResourceMetadata(publicUrl, resource);
  for (const path of [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`]) {
    root.get(
      path,
      {
        config: { permission: 'public' },
        schema: { summary: 'OAuth protected-resource metadata of the MCP endpoint (RFC 9728)', tags: TAGS },
      },
      async (_request, reply) => reply.headers({ ...CORS, 'cache-control': 'public, max-age=300' }).send(prm),
    );
  }
  const asm = authorizationServerMetadata(publicUrl);
  root.get(
    AUTHORIZATION_SERVER_PATH,
    { config: { permission: 'public' }, schema: { summary: 'OAuth authorization-server metadata (RFC 8414)', tags: TAGS } },
    async (_request, reply) => reply.headers({ ...CORS, 'cache-control': 'public, max-age=300' }).send(asm),
  );

  // The client-facing endpoints parse their own bodies, so every failure is RFC 6749 / RFC 7591 error JSON.
  await root.register(async (app) => {
    app.removeContentTypeParser('application/json');
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, String(body)));
    }
    for (const path of [OAUTH_PATHS.register, OAUTH_PATHS.token, OAUTH_PATHS.revoke, PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, AUTHORIZATION_SERVER_PATH]) {
      app.options(path, { config: { permission: 'public' }, schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(CORS).send());
    }

    app.post(
      OAUTH_PATHS.register,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        schema: {
          summary: 'Dynamic client registration (RFC 7591)',
          description:
            'JSON client metadata; `redirect_uris` must be https or loopback http and are matched exactly. `token_endpoint_auth_method` none (public client, PKCE only), ' +
            'client_secret_basic (the RFC default) or client_secret_post; a secret is returned once and stored hashed. Errors: 400 `invalid_redirect_uri` / `invalid_client_metadata`.',
          tags: TAGS,
          response: { 201: z.record(z.string(), z.unknown()).describe('the registered client metadata, with client_id (and client_secret once)'), ...OAUTH_ERRORS },
        },
      },
      oauthHandler(async (request, reply) => {
        let body: unknown;
        try {
          body = JSON.parse(typeof request.body === 'string' ? request.body : '');
        } catch {
          throw new OAuthError('invalid_client_metadata', 'send the client metadata as a JSON object');
        }
        const registered = await registerClient(deps.db, body, deps.clock.now());
        deps.log.info({ client_id: registered.client_id, client_name: registered.client_name, redirect_uris: registered.redirect_uris }, 'oauth: client registered');
        return reply.code(201).headers({ ...CORS, 'cache-control': 'no-store' }).send(registered);
      }),
    );

    app.post(
      OAUTH_PATHS.token,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        logLevel: 'warn',
        schema: {
          summary: 'Token endpoint: authorization_code (with PKCE code_verifier) and refresh_token (rotating)',
          description:
            'Form-encoded (RFC 6749 §4.1.3, §6). Answers `access_token` (1 hour), `refresh_token` (single use, 30 days, the grant at most 90 days), `expires_in`, `scope`. ' +
            'Errors are RFC 6749 JSON: invalid_request, invalid_client (401), invalid_grant, unsupported_grant_type, invalid_scope, invalid_target. A spent refresh token presented again revokes the grant.',
          tags: TAGS,
          response: OAUTH_ERRORS,
        },
      },
      oauthHandler(async (request, reply) => {
        const { form, client } = await formAndClient(request);
        const tf = form as TokenForm;
        if (form.grant_type !== 'authorization_code' && form.grant_type !== 'refresh_token') {
          throw new OAuthError(form.grant_type ? 'unsupported_grant_type' : 'invalid_request', form.grant_type ? `grant_type ${form.grant_type} is not supported` : 'send grant_type');
        }
        const tokens = form.grant_type === 'authorization_code' ? await exchangeCode(oauthDeps, client, tf, resource) : await refreshTokens(oauthDeps, client, tf, resource);
        return reply.headers({ ...CORS, 'cache-control': 'no-store', pragma: 'no-cache' }).send(tokens);
      }),
    );

    app.post(
      OAUTH_PATHS.revoke,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        logLevel: 'warn',
        schema: {
          summary: 'Token revocation (RFC 7009): revokes the grant of an access or refresh token',
          description: 'Form-encoded `token` (and optional `token_type_hint`), with the client’s authentication. 200 whether or not the token was known.',
          tags: TAGS,
          response: OAUTH_ERRORS,
        },
      },
      oauthHandler(async (request, reply) => {
        const { form, client } = await formAndClient(request);
        await revokeToken(oauthDeps, client, form.token);
        return reply.headers({ ...CORS, 'cache-control': 'no-store' }).send({});
      }),
    );
  });

  await oauthConsentRoutes(root, deps);

  root.get(
    OAUTH_PATHS.grants,
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'OAuth grants of MCP clients: your own, or every grant of the tenant for an admin',
        description: 'A grant is one person’s consent to one client; its tokens stop working when it is revoked.',
        tags: TAGS,
        querystring: z.object({
          include_revoked: z.enum(['true', 'false']).default('false'),
          limit: z.coerce.number().int().min(1).max(1000).default(200),
        }),
        response: { 200: z.object({ grants: z.array(grantView) }) },
      },
    },
    async (request) => ({
      grants: await listGrantsFor(deps.db, principalOf(request), { includeRevoked: request.query.include_revoked === 'true', limit: request.query.limit }),
    }),
  );

  root.delete(
    `${OAUTH_PATHS.grants}/:id`,
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'Revoke an OAuth grant: its access and refresh tokens stop working at once',
        description: 'Your own grants, or any grant of the tenant for an admin; 404 otherwise (and for a grant already revoked).',
        tags: TAGS,
        params: z.object({ id: z.string().min(1).max(100) }),
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await revokeGrantAs(deps.db, principalOf(request), request.params.id, deps.clock.now());
      return reply.code(204).send(null);
    },
  );
}
