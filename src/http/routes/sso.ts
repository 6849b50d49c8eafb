import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ACS_PATH,
  ATTEMPTS_COOKIE,
  configureGroupMapping,
  configureOidc,
  configureSaml,
  configView,
  configViewSchema,
  endSession,
  FLOW_COOKIE,
  getSsoConfig,
  groupMappingSchema,
  isSecureTransport,
  type LoginOutcome,
  listUsers,
  MAX_SAML_RESPONSE_BYTES,
  OIDC_CALLBACK_PATH,
  oidcCallback,
  oidcConfigSchema,
  problem,
  problemError,
  readCookie,
  runSsoTest,
  runtimeConfigSchema,
  SESSION_COOKIE,
  samlCallback,
  samlConfigSchema,
  serializeCookie,
  setUserDisabledAs,
  spMetadata,
  ssoStatus,
  startLogin,
  statusSchema,
  testReportSchema,
  updateRuntimeConfig,
} from '../../auth/index.ts';
import { OAUTH_RETURN_COOKIE, resumeLocation, returnCookie } from '../../auth/oauth-server/index.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { assertSameOrigin, principalOf, resolvePrincipal } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const TAGS = ['sso'];

/** Every SSO endpoint refuses plain HTTP (see isSecureTransport for the proxy and loopback exceptions). */
function requireHttps(deps: AppDeps) {
  return async (request: FastifyRequest) => {
    const ok = isSecureTransport({ protocol: request.protocol, remoteAddress: request.socket.remoteAddress, publicUrl: deps.config.publicUrl });
    if (!ok) throw problemError(problem('sso_https_required', 'single sign-on endpoints require HTTPS; this request came over plain HTTP'));
  };
}

/**
 * Public sign-in endpoints write rows (outstanding requests, audit events): the API's token bucket applies to them
 * per client address (the forwarded one when ATRIUM_TRUST_PROXY=true).
 */
function rateLimitByPeer(deps: AppDeps) {
  return async (request: FastifyRequest) => {
    const wait = deps.rateLimiter.take(`sso-ip:${request.ip}`, deps.clock.now().getTime());
    if (wait > 0) throw Errors.rateLimited(wait);
  };
}

function actorOf(request: FastifyRequest) {
  const p = principalOf(request);
  return { tenantId: p.tenantId, id: p.id, userId: p.userId };
}

/**
 * Ends a callback: success sets the session cookie and redirects to the console. A failure (already audited) goes
 * back to the console's sign-in page as `/?sso_error=<code>` for a browser, or is the JSON error for other clients.
 */
function finish(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, outcome: LoginOutcome, extraCookies: string[] = []): FastifyReply {
  if (!outcome.ok) {
    if (!/\btext\/html\b/.test(String(request.headers.accept ?? ''))) throw problemError(outcome.problem);
    if (extraCookies.length) reply.header('set-cookie', extraCookies);
    return reply.redirect(`${deps.config.publicUrl}/?sso_error=${encodeURIComponent(outcome.problem.code)}`, 302);
  }
  // A sign-in started from an MCP client's consent page returns there (src/auth/oauth-server).
  const resume = resumeLocation(deps.config.publicUrl, readCookie(request.headers.cookie, OAUTH_RETURN_COOKIE));
  reply.header('set-cookie', [
    serializeCookie(SESSION_COOKIE, outcome.token, { maxAgeSeconds: outcome.ttlSeconds }),
    serializeCookie(ATTEMPTS_COOKIE, '', { maxAgeSeconds: 0, path: '/v1/auth' }),
    ...(resume ? [returnCookie('', 0)] : []),
    ...extraCookies,
  ]);
  reply.header('cache-control', 'no-store');
  return reply.redirect(resume ?? `${deps.config.publicUrl}/`, 302);
}

// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function ssoRoutes(root: App, deps: AppDeps): Promise<void> {
  // Encapsulated so the form-body parser the SAML POST binding needs applies to these routes only.
  await root.register(async (scope) => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const onRequest = requireHttps(deps);
    const limitSignIns = rateLimitByPeer(deps);

    app.post(
      '/v1/auth/sso/saml',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Configure SAML 2.0 sign-on; makes SAML the active provider',
          description: 'The certificate must parse and be currently valid (an expired one is rejected: upload a new certificate).',
          tags: TAGS,
          body: samlConfigSchema.strict(),
          response: { 200: configViewSchema },
        },
      },
      async (request) => configureSaml(deps, actorOf(request), request.body),
    );

    app.post(
      '/v1/auth/sso/oidc',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Configure OpenID Connect sign-on; makes OIDC the active provider',
          description: 'Discovery at issuer_url is fetched and validated before saving. client_secret is stored encrypted and never returned.',
          tags: TAGS,
          body: oidcConfigSchema.strict(),
          response: { 200: configViewSchema },
        },
      },
      async (request) => configureOidc(deps, actorOf(request), request.body),
    );

    app.put(
      '/v1/auth/sso/group-mapping',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Replace the IdP group → role mapping',
          description: 'A user gets the most privileged role among their mapped groups, else default_role (viewer unless set).',
          tags: TAGS,
          body: groupMappingSchema.strict(),
          response: { 200: groupMappingSchema },
        },
      },
      async (request) => configureGroupMapping(deps, actorOf(request), request.body),
    );

    app.get(
      '/v1/auth/sso/config',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: { summary: 'The stored SSO configuration (no secrets) and the values to give the IdP', tags: TAGS, response: { 200: configViewSchema } },
      },
      async (request) => {
        const tenantId = principalOf(request).tenantId;
        return configView(deps, tenantId, await getSsoConfig(deps.db, tenantId));
      },
    );

    app.patch(
      '/v1/auth/sso/config',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Turn SSO debug logging on or off and set the session lifetime',
          tags: TAGS,
          body: runtimeConfigSchema,
          response: { 200: configViewSchema },
        },
      },
      async (request) => updateRuntimeConfig(deps, actorOf(request), request.body),
    );

    app.get(
      '/v1/auth/sso/status',
      {
        config: { permission: 'public' },
        onRequest,
        schema: {
          summary: 'Whether SSO is enabled, with which provider, and the last sign-in',
          description:
            "The caller's tenant, or `tenant_id` for the console's sign-in page before anyone is signed in. `last_login` is shown only to a credential of that tenant.",
          tags: TAGS,
          querystring: z.object({ tenant_id: z.string().min(1).max(100).optional() }),
          response: { 200: statusSchema },
        },
      },
      async (request) => {
        const principal = await resolvePrincipal(deps, request).catch(() => null);
        const tenantId = request.query.tenant_id ?? principal?.tenantId;
        if (!tenantId) throw Errors.validation('send tenant_id, or call with a credential of the tenant');
        const status = await ssoStatus(deps, tenantId);
        return principal?.tenantId === tenantId ? status : { ...status, last_login: null };
      },
    );

    app.post(
      '/v1/auth/sso/test',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Validate the SSO configuration and dry-run a SAML response, without signing anyone in',
          tags: TAGS,
          body: z.object({
            test_mode: z.literal(true).describe('must be true: the test never creates users or sessions'),
            saml_response: z.string().min(1).max(MAX_SAML_RESPONSE_BYTES * 2).optional().describe('a base64 SAMLResponse to dry-run'),
          }).strict(),
          response: { 200: testReportSchema },
        },
      },
      async (request) => runSsoTest(deps, actorOf(request), { samlResponse: request.body.saml_response }),
    );

    app.get(
      '/v1/auth/sso/saml/metadata',
      {
        config: { permission: 'public' },
        onRequest,
        schema: { summary: 'SAML service-provider metadata (entity id = public URL, ACS with HTTP-POST, NameID emailAddress)', tags: TAGS },
      },
      async (_request, reply) => reply.type('application/samlmetadata+xml; charset=utf-8').send(spMetadata(deps.config.publicUrl)),
    );

    app.get(
      '/v1/auth/sso/login',
      {
        config: { permission: 'public' },
        onRequest: [onRequest, limitSignIns],
        schema: {
          summary: "Start sign-in: 302 to the tenant's IdP (SAML redirect binding, or OIDC code flow with state, nonce and PKCE)",
          tags: TAGS,
          querystring: z.object({ tenant_id: z.string().min(1).max(100) }),
        },
      },
      async (request, reply) => {
        const attempts = Number.parseInt(readCookie(request.headers.cookie, ATTEMPTS_COOKIE) ?? '0', 10);
        const start = await startLogin(deps, request.query.tenant_id, Number.isFinite(attempts) && attempts > 0 ? attempts : 0);
        if (start.cookies.length) reply.header('set-cookie', start.cookies);
        reply.header('cache-control', 'no-store');
        return reply.redirect(start.location, 302);
      },
    );

    // The SAML POST binding sends a form. Only the ACS accepts form bodies (its own scope): the JSON-only API keeps
    // cross-site HTML forms out of cookie-authenticated endpoints.
    await app.register(async (formScope) => {
      const acs = formScope.withTypeProvider<ZodTypeProvider>();
      acs.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_SAML_RESPONSE_BYTES * 2 }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      });
      acs.post(
        ACS_PATH,
        {
          config: { permission: 'public' },
          onRequest: [onRequest, limitSignIns],
          // The request line and body carry the assertion: keep them out of the access log.
          logLevel: 'warn',
          schema: {
            summary: 'SAML assertion consumer service (HTTP-POST binding): validates, provisions the user, starts a session, redirects to the console',
            tags: TAGS,
            body: z.object({ SAMLResponse: z.string().min(1).max(MAX_SAML_RESPONSE_BYTES * 2), RelayState: z.string().max(2000).optional() }),
          },
        },
        async (request, reply) => finish(deps, request, reply, await samlCallback(deps, request.body)),
      );
    });

    app.get(
      OIDC_CALLBACK_PATH,
      {
        config: { permission: 'public' },
        onRequest: [onRequest, limitSignIns],
        // The query string carries the authorization code: keep it out of the access log.
        logLevel: 'warn',
        schema: {
          summary: 'OIDC redirect URI: exchanges the code, validates the ID token, provisions the user, starts a session, redirects to the console',
          tags: TAGS,
          querystring: z.object({ state: z.string().max(2000).optional(), code: z.string().max(4000).optional() }).catchall(z.string().max(4000)),
        },
      },
      async (request, reply) => {
        const rawQuery = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
        const outcome = await oidcCallback(deps, { rawQuery, flowCookie: readCookie(request.headers.cookie, FLOW_COOKIE) });
        return finish(deps, request, reply, outcome, [serializeCookie(FLOW_COOKIE, '', { maxAgeSeconds: 0, path: '/v1/auth' })]);
      },
    );

    const userView = z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      role: z.enum(['admin', 'member', 'viewer']),
      groups: z.array(z.string()),
      provider_type: z.string().nullable(),
      disabled: z.boolean(),
      last_login_at: z.string().nullable(),
      created_at: z.string(),
    });

    app.get(
      '/v1/auth/users',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Users provisioned by SSO sign-ins, most recent sign-in first',
          tags: TAGS,
          querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
          response: { 200: z.object({ users: z.array(userView) }) },
        },
      },
      async (request) => ({ users: await listUsers(deps.db, principalOf(request).tenantId, request.query.limit) }),
    );

    app.patch(
      '/v1/auth/users/:id',
      {
        config: { permission: 'admin' },
        onRequest,
        schema: {
          summary: 'Disable (revoking their sessions at once) or re-enable a user',
          tags: TAGS,
          params: z.object({ id: z.string().min(1).max(100) }),
          body: z.object({ disabled: z.boolean() }).strict(),
          response: { 200: userView },
        },
      },
      async (request) => {
        return setUserDisabledAs(deps.db, actorOf(request), request.params.id, request.body.disabled, deps.clock.now());
      },
    );

    app.post(
      '/v1/auth/logout',
      {
        config: { permission: 'public' },
        onRequest,
        schema: { summary: 'End the SSO session of the atrium_session cookie and clear it', tags: TAGS, response: { 204: z.null() } },
      },
      async (request, reply) => {
        const token = readCookie(request.headers.cookie, SESSION_COOKIE);
        if (token) assertSameOrigin(deps, request);
        if (token) await endSession(deps.db, token, deps.clock.now());
        reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0 }));
        return reply.status(204).send(null);
      },
    );
  });
}
