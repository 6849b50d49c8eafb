import { randomBytes } from 'node:crypto';
import { tenantExists } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { Errors } from '../platform/errors.ts';
import { type MappedIdentity, mapIdentity } from './attributes.ts';
import { SsoAudit } from './audit-actions.ts';
import { certificateValidityProblem, parseCertificate } from './certificate.ts';
import { problemError } from './config-service.ts';
import { ATTEMPTS_COOKIE, FLOW_COOKIE, serializeCookie } from './cookies.ts';
import { type SsoDeps, ssoLog } from './deps.ts';
import { authorizationRequest, completeAuthorization, OIDC_CALLBACK_PATH, oidcClient } from './oidc.ts';
import { type Problem, problem } from './problems.ts';
import { roleForGroups } from './roles.ts';
import { authnRequestUrl, newRequestId, spEndpoints } from './saml/sp.ts';
import { validateSamlResponse } from './saml/validate.ts';
import { hasDoctype, NS, parseXml } from './saml/xml.ts';
import { createSession } from './sessions.ts';
import {
  consumeAssertion,
  consumeRequest,
  findRequest,
  getSsoConfig,
  markLogin,
  type ProviderType,
  type SsoConfig,
  saveRequest,
  sha256,
} from './store.ts';
import { type User, upsertUser } from './users.ts';

/** How long a started sign-in may take at the IdP. */
export const REQUEST_TTL_MS = 10 * 60_000;

export interface LoginStart {
  readonly location: string;
  readonly cookies: string[];
}

/** Sign-ins a browser may start, each within LOOP_WINDOW_S of the previous, without one completing. */
export const LOOP_LIMIT = 5;
export const LOOP_WINDOW_S = 120;

/**
 * GET /v1/auth/sso/login: records the outstanding request and returns the IdP URL to redirect to. `attempts` is
 * how many sign-ins this browser started recently without completing one: past LOOP_LIMIT it is a redirect loop
 * (the callback never lands where the browser started), refused with the remedy instead of another round trip.
 */
export async function startLogin(deps: SsoDeps, tenantId: string, attempts = 0): Promise<LoginStart> {
  if (!(await tenantExists(deps.db, tenantId))) throw Errors.notFound('tenant', tenantId);
  const cfg = await getSsoConfig(deps.db, tenantId);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + REQUEST_TTL_MS);
  if (cfg?.activeProvider && attempts >= LOOP_LIMIT) {
    const p = problem(
      'sso_callback_mismatch',
      `redirect loop: this browser started ${attempts} sign-ins without completing one; the IdP must send it back to ${spEndpoints(deps.config.publicUrl).acsUrl} or ${deps.config.publicUrl}${OIDC_CALLBACK_PATH} exactly`,
    );
    await fail(deps, tenantId, cfg, cfg.activeProvider, [p], { redirect_loop: true });
    throw problemError(p, 400);
  }
  const counter = serializeCookie(ATTEMPTS_COOKIE, String(attempts + 1), { maxAgeSeconds: LOOP_WINDOW_S, path: '/v1/auth' });
  if (cfg?.activeProvider === 'saml' && cfg.saml) {
    const requestId = newRequestId();
    await saveRequest(deps.db, { id: requestId, tenantId, provider: 'saml', expiresAt, now });
    const location = await authnRequestUrl({ publicUrl: deps.config.publicUrl, idpSsoUrl: cfg.saml.idp_sso_url, requestId, relayState: tenantId });
    ssoLog(deps, tenantId, cfg, { provider_type: 'saml', request_id: requestId }, 'sign-in started');
    return { location, cookies: [counter] };
  }
  if (cfg?.activeProvider === 'oidc' && cfg.oidc && cfg.oidcClientSecretEnc) {
    const client = oidcClient({
      metadata: cfg.oidc.discovery,
      clientId: cfg.oidc.client_id,
      clientSecret: deps.secrets.open(cfg.oidcClientSecretEnc),
      now,
      skewSeconds: deps.config.sso.clockSkewSeconds,
    });
    const auth = await authorizationRequest(client, `${deps.config.publicUrl}${OIDC_CALLBACK_PATH}`, cfg.oidc.scopes);
    const binding = randomBytes(32).toString('base64url');
    await saveRequest(deps.db, {
      id: sha256(auth.state),
      tenantId,
      provider: 'oidc',
      secretEnc: deps.secrets.seal(JSON.stringify({ nonce: auth.nonce, code_verifier: auth.codeVerifier })),
      browserBinding: sha256(binding),
      expiresAt,
      now,
    });
    ssoLog(deps, tenantId, cfg, { provider_type: 'oidc' }, 'sign-in started');
    return { location: auth.url, cookies: [serializeCookie(FLOW_COOKIE, binding, { maxAgeSeconds: REQUEST_TTL_MS / 1000, path: '/v1/auth' }), counter] };
  }
  throw problemError(problem('sso_not_configured', `tenant '${tenantId}' has no single sign-on configured`));
}

export type LoginOutcome =
  | { readonly ok: true; readonly tenantId: string; readonly user: User; readonly token: string; readonly ttlSeconds: number }
  | { readonly ok: false; readonly tenantId: string | null; readonly problem: Problem; readonly problems: Problem[] };

async function fail(
  deps: SsoDeps,
  tenantId: string | null,
  cfg: SsoConfig | null,
  provider: ProviderType,
  problems: Problem[],
  extra: Record<string, unknown> = {},
): Promise<LoginOutcome> {
  const first = problems[0]!;
  ssoLog(deps, tenantId, cfg, { provider_type: provider, codes: problems.map((p) => p.code), ...extra }, `sign-in rejected: ${first.code}`);
  if (tenantId) {
    await recordAudit(deps.db, {
      tenantId,
      action: SsoAudit.loginFailed,
      details: {
        provider_type: provider,
        code: first.code,
        message: first.message,
        remedy: first.remedy,
        problems: problems.map((p) => ({ code: p.code, message: p.message, remedy: p.remedy })),
        ...extra,
      },
      at: deps.clock.now(),
    });
  }
  return { ok: false, tenantId, problem: first, problems };
}

async function finishLogin(
  deps: SsoDeps,
  cfg: SsoConfig,
  provider: ProviderType,
  identity: MappedIdentity,
  externalId: string,
): Promise<LoginOutcome> {
  const now = deps.clock.now();
  const role = roleForGroups(identity.groups, cfg.groupMapping, cfg.defaultRole);
  const user = await upsertUser(deps.db, { tenantId: cfg.tenantId, identity, role, provider, externalId, now });
  if (user.disabled) return fail(deps, cfg.tenantId, cfg, provider, [problem('sso_user_disabled', `user ${user.email} is disabled`)], { email: user.email });
  const ttlSeconds = cfg.sessionTtlSeconds ?? deps.config.sso.sessionTtlSeconds;
  const session = await createSession(deps.db, { tenantId: cfg.tenantId, userId: user.id, provider, ttlSeconds, now });
  await markLogin(deps.db, cfg.tenantId, now);
  await recordAudit(deps.db, {
    tenantId: cfg.tenantId,
    action: SsoAudit.loginSucceeded,
    actorId: user.id,
    userId: user.id,
    details: { provider_type: provider, email: user.email, role, groups: identity.groups.slice(0, 50), jit_created: user.created, session_id: session.id },
    at: now,
  });
  ssoLog(deps, cfg.tenantId, cfg, { provider_type: provider, email: user.email, role, groups: identity.groups.length, created: user.created }, 'sign-in accepted');
  return { ok: true, tenantId: cfg.tenantId, user, token: session.token, ttlSeconds };
}

/**
 * The (unverified) InResponseTo, only to find which tenant's request this answers; it is re-checked once the
 * signature is verified. DOCTYPE and unparseable input are refused here, before anything else reads them.
 */
function peekInResponseTo(samlResponse: string): { inResponseTo: string | null } | { problem: Problem } {
  const compact = samlResponse.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(compact)) return { problem: problem('saml_malformed', 'SAMLResponse is not base64') };
  const xml = Buffer.from(compact, 'base64').toString('utf8');
  if (hasDoctype(xml)) return { problem: problem('saml_doctype_forbidden', 'the SAML response contains a DOCTYPE or ENTITY declaration') };
  const root = parseXml(xml)?.documentElement;
  if (!root || root.namespaceURI !== NS.protocol || root.localName !== 'Response') {
    return { problem: problem('saml_malformed', 'the SAMLResponse is not a well-formed SAML 2.0 Response') };
  }
  const direct = root.getAttribute('InResponseTo');
  if (direct) return { inResponseTo: direct };
  const data = root.getElementsByTagNameNS(NS.assertion, 'SubjectConfirmationData');
  return { inResponseTo: data.length === 1 ? data[0]!.getAttribute('InResponseTo') || null : null };
}

/** POST /v1/auth/saml/callback. */
export async function samlCallback(deps: SsoDeps, form: { SAMLResponse: string; RelayState?: string | undefined }): Promise<LoginOutcome> {
  const now = deps.clock.now();
  const peek = peekInResponseTo(form.SAMLResponse);
  const requestId = 'inResponseTo' in peek ? peek.inResponseTo : null;
  const request = requestId ? await findRequest(deps.db, requestId) : null;
  if (request?.provider !== 'saml') {
    // Audit into the tenant named by RelayState when it exists: failed attempts are worth seeing.
    const hinted = form.RelayState && /^[\w.-]{1,100}$/.test(form.RelayState) && (await tenantExists(deps.db, form.RelayState)) ? form.RelayState : null;
    const hintedCfg = hinted ? await getSsoConfig(deps.db, hinted) : null;
    const p =
      'problem' in peek
        ? peek.problem
        : requestId
          ? problem('saml_unknown_request', 'InResponseTo does not match a sign-in this service started')
          : problem('saml_unknown_request', 'the response has no InResponseTo: start sign-in from GET /v1/auth/sso/login');
    return fail(deps, hinted, hintedCfg, 'saml', [p], { tenant_unverified: hinted !== null });
  }
  const tenantId = request.tenantId;
  const cfg = await getSsoConfig(deps.db, tenantId);
  if (cfg?.activeProvider !== 'saml' || !cfg.saml) {
    return fail(deps, tenantId, cfg, 'saml', [problem('sso_not_configured', 'SAML is not the active sign-on provider of this tenant')]);
  }
  const cert = parseCertificate(cfg.saml.idp_certificate);
  const certProblem = 'problem' in cert ? cert.problem : certificateValidityProblem(cert.cert, now);
  if (certProblem) return fail(deps, tenantId, cfg, 'saml', [certProblem]);

  const { entityId, acsUrl } = spEndpoints(deps.config.publicUrl);
  const result = await validateSamlResponse({
    samlResponse: form.SAMLResponse,
    idpEntityId: cfg.saml.idp_entity_id,
    idpCertificate: cfg.saml.idp_certificate,
    spEntityId: entityId,
    acsUrl,
    now,
    skewMs: deps.config.sso.clockSkewSeconds * 1000,
  });
  if (result.fatal || !result.assertion) return fail(deps, tenantId, cfg, 'saml', result.problems);
  if (result.problems.length) return fail(deps, tenantId, cfg, 'saml', result.problems, { assertion_id: result.assertion.assertionId });
  const assertion = result.assertion;
  if (assertion.inResponseTo !== request.id) {
    return fail(deps, tenantId, cfg, 'saml', [problem('saml_unknown_request', 'the signed InResponseTo differs from the response InResponseTo')]);
  }
  const used = await deps.db.transaction(async (tx) => {
    if (!(await consumeAssertion(tx, tenantId, assertion.assertionId, assertion.notOnOrAfter, now))) return 'replay' as const;
    if (!(await consumeRequest(tx, tenantId, request.id, now))) return 'request' as const;
    return null;
  });
  if (used === 'replay') {
    return fail(deps, tenantId, cfg, 'saml', [problem('saml_replay', `assertion ${assertion.assertionId} was already used`)], { assertion_id: assertion.assertionId });
  }
  if (used === 'request') {
    return fail(deps, tenantId, cfg, 'saml', [problem('saml_unknown_request', 'the sign-in request was already answered or has expired')]);
  }
  const mapped = mapIdentity(assertion.attributes, cfg.saml.attribute_mapping, assertion.nameId);
  if ('problem' in mapped) return fail(deps, tenantId, cfg, 'saml', [mapped.problem], { attributes: Object.keys(assertion.attributes) });
  return finishLogin(deps, cfg, 'saml', mapped.identity, assertion.nameId);
}

/** GET /v1/auth/oidc/callback. `rawQuery` is the query string exactly as received. */
export async function oidcCallback(deps: SsoDeps, input: { rawQuery: string; flowCookie: string | undefined }): Promise<LoginOutcome> {
  const now = deps.clock.now();
  const params = new URLSearchParams(input.rawQuery);
  const state = params.get('state');
  const request = state ? await findRequest(deps.db, sha256(state)) : null;
  if (request?.provider !== 'oidc') {
    return fail(deps, null, null, 'oidc', [problem('oidc_state_invalid', 'the callback state does not match a sign-in this service started')]);
  }
  const tenantId = request.tenantId;
  const cfg = await getSsoConfig(deps.db, tenantId);
  if (!input.flowCookie || !request.browserBinding || sha256(input.flowCookie) !== request.browserBinding) {
    return fail(deps, tenantId, cfg, 'oidc', [
      problem('sso_callback_mismatch', 'the callback arrived without the cookie set when sign-in started: the browser came back to a different URL than it left from'),
    ]);
  }
  if (!(await consumeRequest(deps.db, tenantId, request.id, now))) {
    return fail(deps, tenantId, cfg, 'oidc', [problem('oidc_state_invalid', 'this sign-in was already completed or has expired')]);
  }
  if (cfg?.activeProvider !== 'oidc' || !cfg.oidc || !cfg.oidcClientSecretEnc || !request.secretEnc) {
    return fail(deps, tenantId, cfg, 'oidc', [problem('sso_not_configured', 'OIDC is not the active sign-on provider of this tenant')]);
  }
  const secrets = JSON.parse(deps.secrets.open(request.secretEnc)) as { nonce: string; code_verifier: string };
  const client = oidcClient({
    metadata: cfg.oidc.discovery,
    clientId: cfg.oidc.client_id,
    clientSecret: deps.secrets.open(cfg.oidcClientSecretEnc),
    now,
    skewSeconds: deps.config.sso.clockSkewSeconds,
  });
  const currentUrl = new URL(`${deps.config.publicUrl}${OIDC_CALLBACK_PATH}?${input.rawQuery}`);
  const done = await completeAuthorization(client, currentUrl, { state: state!, nonce: secrets.nonce, codeVerifier: secrets.code_verifier });
  if ('problem' in done) return fail(deps, tenantId, cfg, 'oidc', [done.problem]);
  const claims = done.claims;
  if (claims.email_verified === false) {
    return fail(deps, tenantId, cfg, 'oidc', [problem('sso_email_unverified', 'the IdP reports the email address as unverified')]);
  }
  const mapped = mapIdentity(claims, cfg.oidc.attribute_mapping);
  if ('problem' in mapped) return fail(deps, tenantId, cfg, 'oidc', [mapped.problem], { attributes: Object.keys(claims) });
  return finishLogin(deps, cfg, 'oidc', mapped.identity, `${String(claims.iss)}|${String(claims.sub)}`);
}
