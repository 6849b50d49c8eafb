import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authenticateKey, can, type Permission, PERMISSIONS } from '../../access/index.ts';
import { getSsoConfig, readCookie, SESSION_COOKIE, sessionPrincipal } from '../../auth/index.ts';
import {
  answerConsent,
  type AuthorizeQuery,
  checkAuthorizeRequest,
  consentPage,
  errorPage,
  type GrantSubject,
  grantablePermissions,
  loadPendingRequest,
  OAUTH_FLOW_COOKIE,
  OAUTH_PATHS,
  type PendingRequest,
  pageHeaders,
  permissionSummary,
  returnCookie,
  savePendingRequest,
  setRequestKey,
  signInPage,
} from '../../auth/oauth-server/index.ts';
import { REQUEST_TTL_S } from '../../auth/oauth-server/tokens.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { assertSameOrigin, underFailureThrottle } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const TAGS = ['oauth'];
const MAX_FORM_BYTES = 16 * 1024;
const HIDE = true;

function flowCookie(value: string, maxAgeSeconds: number): string {
  return `${OAUTH_FLOW_COOKIE}=${encodeURIComponent(value)}; Path=${OAUTH_PATHS.authorize}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}

function html(reply: FastifyReply, status: number, body: string, redirectUri?: string): FastifyReply {
  return reply.code(status).headers(pageHeaders(redirectUri)).send(body);
}

/** The pending request of this browser, or the error page. */
async function pending(deps: AppDeps, request: FastifyRequest, id: string | undefined): Promise<PendingRequest | null> {
  if (!id) return null;
  return loadPendingRequest(deps.db, id, readCookie(request.headers.cookie, OAUTH_FLOW_COOKIE), deps.clock.now());
}

const EXPIRED = 'This sign-in page has expired or was opened in another browser.';

/** The subject of a request: the key pasted for it, else the browser's SSO session; null when neither. */
async function subjectOf(deps: AppDeps, request: FastifyRequest, req: PendingRequest): Promise<GrantSubject | null> {
  if (req.apiKeyId && req.tenantId) {
    const r = await deps.db.query<{ name: string; permissions: Permission[]; identity_email: string | null }>(
      'SELECT name, permissions, identity_email FROM api_keys WHERE id = $1 AND tenant_id = $2 AND revoked_at IS NULL',
      [req.apiKeyId, req.tenantId],
    );
    const k = r.rows[0];
    if (!k) return null;
    return { kind: 'api_key', tenantId: req.tenantId, apiKeyId: req.apiKeyId, keyName: k.name, email: k.identity_email, permissions: k.permissions };
  }
  const token = readCookie(request.headers.cookie, SESSION_COOKIE);
  const p = token ? await sessionPrincipal(deps.db, token, deps.clock.now()) : null;
  if (!p?.email) return null;
  return { kind: 'user', tenantId: p.tenantId, userId: p.userId, email: p.email, permissions: [...p.permissions] };
}

async function render(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, req: PendingRequest, opts: { tenantId?: string; error?: string; status?: number } = {}) {
  const subject = opts.error ? null : await subjectOf(deps, request, req);
  if (!subject) return html(reply, opts.status ?? 200, signInPage(req, { tenantId: opts.tenantId ?? 'default', ...(opts.error ? { error: opts.error } : {}) }), req.redirectUri);
  const granted = grantablePermissions(subject.permissions);
  return html(
    reply,
    200,
    consentPage(req, {
      label: subject.kind === 'user' ? subject.email : `API key “${subject.keyName}”`,
      tenantId: subject.tenantId,
      identity: subject.email ? `${subject.email}: the documents this person may read` : 'no person (a service key): documents everyone in the organization may read',
      permissions: permissionSummary(granted.filter((p) => PERMISSIONS.includes(p))),
    }),
    req.redirectUri,
  );
}

/** The consent flow: the authorization endpoint, SSO hand-off, API-key sign-in, and the decision. */
// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function oauthConsentRoutes(root: App, deps: AppDeps): Promise<void> {
  const resource = `${deps.config.publicUrl}/v1/expose/mcp`;
  const limitByPeer = async (request: FastifyRequest) => {
    const wait = deps.rateLimiter.take(`oauth-ip:${request.ip}`, deps.clock.now().getTime());
    if (wait > 0) throw Errors.rateLimited(wait);
  };

  await root.register(async (scope) => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_FORM_BYTES }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    const str = z.string().max(2000).optional();

    app.get(
      OAUTH_PATHS.authorize,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        logLevel: 'warn',
        schema: {
          summary: 'OAuth 2.1 authorization endpoint (authorization code + PKCE S256): the sign-in and consent page for MCP clients',
          description:
            'An unknown client or an unregistered redirect_uri is shown as an error page (never redirected); other invalid requests redirect to the client with `error`. ' +
            'The page signs the person in through the tenant’s SSO, or with an API key pasted once where the tenant has no SSO.',
          tags: TAGS,
          querystring: z.object({
            client_id: str,
            redirect_uri: str,
            response_type: str,
            state: str,
            scope: str,
            code_challenge: str,
            code_challenge_method: str,
            resource: str,
          }),
        },
      },
      async (request, reply) => {
        const check = await checkAuthorizeRequest(deps.db, request.query as AuthorizeQuery, resource);
        if (check.kind === 'page_error') return html(reply, 400, errorPage(check.message));
        if (check.kind === 'redirect_error') return reply.redirect(check.location, 302);
        const saved = await savePendingRequest(deps.db, check, deps.clock.now());
        reply.header('set-cookie', flowCookie(saved.binding, REQUEST_TTL_S));
        const req = await loadPendingRequest(deps.db, saved.id, saved.binding, deps.clock.now());
        return render(deps, request, reply, req!);
      },
    );

    app.get(
      `${OAUTH_PATHS.authorize}/resume`,
      {
        config: { permission: 'public' },
        schema: { hide: HIDE, querystring: z.object({ request_id: z.string().min(1).max(100) }) },
      },
      async (request, reply) => {
        const req = await pending(deps, request, request.query.request_id);
        if (!req) return html(reply, 400, errorPage(EXPIRED));
        return render(deps, request, reply, req);
      },
    );

    app.get(
      `${OAUTH_PATHS.authorize}/sso`,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        schema: { hide: HIDE, querystring: z.object({ request_id: z.string().min(1).max(100), tenant_id: z.string().trim().min(1).max(100) }) },
      },
      async (request, reply) => {
        const req = await pending(deps, request, request.query.request_id);
        if (!req) return html(reply, 400, errorPage(EXPIRED));
        const tenantId = request.query.tenant_id;
        const cfg = /^[\w.-]{1,100}$/.test(tenantId) ? await getSsoConfig(deps.db, tenantId) : null;
        if (!cfg?.activeProvider) {
          return render(deps, request, reply, req, { tenantId, status: 400, error: `Organization “${tenantId}” has no single sign-on configured: paste an API key instead.` });
        }
        reply.header('set-cookie', returnCookie(req.id, REQUEST_TTL_S));
        return reply.redirect(`/v1/auth/sso/login?tenant_id=${encodeURIComponent(tenantId)}`, 302);
      },
    );

    app.post(
      `${OAUTH_PATHS.authorize}/key`,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        // The body carries an API key: keep it out of the access log.
        logLevel: 'warn',
        schema: { hide: HIDE, body: z.object({ request_id: z.string().min(1).max(100), api_key: z.string().max(256) }) },
      },
      async (request, reply) => {
        const req = await pending(deps, request, request.body.request_id);
        if (!req) return html(reply, 400, errorPage(EXPIRED));
        assertSameOrigin(deps, request);
        const key = request.body.api_key.trim();
        const principal = await underFailureThrottle(deps, request.ip, async () => (key ? authenticateKey(deps.db, key, { clock: deps.clock, log: deps.log }) : null));
        if (!principal) return render(deps, request, reply, req, { status: 401, error: 'That API key is not valid (unknown or revoked).' });
        if (principal.id === 'key_bootstrap') {
          return render(deps, request, reply, req, { status: 403, error: 'The bootstrap admin key cannot be used here: paste a key of your own (Console → API keys).' });
        }
        const cfg = await getSsoConfig(deps.db, principal.tenantId);
        if (cfg?.activeProvider) {
          return render(deps, request, reply, req, { tenantId: principal.tenantId, status: 403, error: `Organization “${principal.tenantId}” uses single sign-on: sign in with SSO instead of a key.` });
        }
        if (!can(principal, 'query')) return render(deps, request, reply, req, { status: 403, error: 'That API key lacks the query permission MCP tools need.' });
        await setRequestKey(deps.db, req.id, principal.tenantId, principal.id);
        // Relative: the browser stays on the origin it is on (the flow cookie was set there).
        return reply.redirect(`${OAUTH_PATHS.authorize}/resume?request_id=${encodeURIComponent(req.id)}`, 303);
      },
    );

    app.post(
      `${OAUTH_PATHS.authorize}/decision`,
      {
        config: { permission: 'public' },
        onRequest: limitByPeer,
        schema: { hide: HIDE, body: z.object({ request_id: z.string().min(1).max(100), decision: z.enum(['allow', 'deny']) }) },
      },
      async (request, reply) => {
        const req = await pending(deps, request, request.body.request_id);
        if (!req) return html(reply, 400, errorPage(EXPIRED));
        assertSameOrigin(deps, request);
        const now = deps.clock.now();
        const subject = await subjectOf(deps, request, req);
        if (request.body.decision === 'allow' && !subject) return render(deps, request, reply, req, { status: 401, error: 'Sign in first.' });
        const answered = await answerConsent(deps.db, req, subject, request.body.decision, now);
        if (answered.outcome === 'already_decided') return html(reply, 409, errorPage('This request was already answered.'));
        reply.header('set-cookie', flowCookie('', 0));
        return reply.redirect(answered.location, 302);
      },
    );
  });
}
