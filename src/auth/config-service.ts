import { recordAudit } from '../audit/index.ts';
import { checkEgress, EgressDeniedError } from '../platform/egress.ts';
import { AppError } from '../platform/errors.ts';
import { SsoAudit } from './audit-actions.ts';
import { certificateValidityProblem, parseCertificate } from './certificate.ts';
import type { Actor, SsoDeps } from './deps.ts';
import { discoverIssuer, OIDC_CALLBACK_PATH } from './oidc.ts';
import { PROBLEMS, type Problem, problem } from './problems.ts';
import { spEndpoints } from './saml/sp.ts';
import type { GroupMappingInput, OidcConfigInput, RuntimeConfigInput, SamlConfigInput } from './schemas.ts';
import { getSsoConfig, type SsoConfig, saveGroupMapping, saveOidcSettings, saveRuntimeSettings, saveSamlSettings } from './store.ts';

/** A problem as an HTTP error: `{error: {code, message, details: {remedy}}}`. */
export function problemError(p: Problem, status?: number): AppError {
  return new AppError(p.code, status ?? PROBLEMS[p.code].status, `${p.message}; remedy: ${p.remedy}`, { details: { remedy: p.remedy } });
}

/** The stored configuration as the API shows it: no client secret, ever. */
export function configView(deps: SsoDeps, tenantId: string, cfg: SsoConfig | null) {
  const { entityId, acsUrl } = spEndpoints(deps.config.publicUrl);
  return {
    tenant_id: tenantId,
    active_provider: cfg?.activeProvider ?? null,
    saml: cfg?.saml
      ? {
          idp_entity_id: cfg.saml.idp_entity_id,
          idp_sso_url: cfg.saml.idp_sso_url,
          idp_certificate: cfg.saml.idp_certificate,
          certificate: cfg.saml.certificate,
          attribute_mapping: cfg.saml.attribute_mapping,
        }
      : null,
    oidc: cfg?.oidc
      ? {
          client_id: cfg.oidc.client_id,
          issuer_url: cfg.oidc.issuer_url,
          scopes: cfg.oidc.scopes,
          attribute_mapping: cfg.oidc.attribute_mapping,
          client_secret_set: cfg.oidcClientSecretEnc !== null,
        }
      : null,
    group_mapping: cfg?.groupMapping ?? {},
    default_role: cfg?.defaultRole ?? 'viewer',
    debug_mode: cfg?.debugMode ?? false,
    session_ttl_seconds: cfg?.sessionTtlSeconds ?? deps.config.sso.sessionTtlSeconds,
    clock_skew_seconds: deps.config.sso.clockSkewSeconds,
    service_provider: {
      entity_id: entityId,
      audience: entityId,
      acs_url: acsUrl,
      metadata_url: `${deps.config.publicUrl}/v1/auth/sso/saml/metadata`,
      oidc_redirect_uri: `${deps.config.publicUrl}${OIDC_CALLBACK_PATH}`,
      login_url: `${deps.config.publicUrl}/v1/auth/sso/login?tenant_id=${encodeURIComponent(tenantId)}`,
    },
    updated_at: cfg ? cfg.updatedAt.toISOString() : null,
  };
}
export type ConfigView = ReturnType<typeof configView>;

async function rejected(deps: SsoDeps, actor: Actor, provider: string, p: Problem): Promise<never> {
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: SsoAudit.configRejected,
    actorId: actor.id,
    userId: actor.userId,
    details: { provider_type: provider, code: p.code, message: p.message, remedy: p.remedy },
    at: deps.clock.now(),
  });
  throw problemError(p, 400);
}

/** The egress policy's refusal of an IdP URL (a private address in production mode), as a problem; null when allowed. */
async function egressProblem(deps: SsoDeps, field: string, url: string): Promise<Problem | null> {
  try {
    await checkEgress(deps.config.egress, url, { log: deps.log });
    return null;
  } catch (err) {
    if (err instanceof EgressDeniedError) return problem('sso_egress_denied', `${field}: ${err.message}`);
    throw err;
  }
}

export async function configureSaml(deps: SsoDeps, actor: Actor, input: SamlConfigInput): Promise<ConfigView> {
  const denied = await egressProblem(deps, 'idp_sso_url', input.idp_sso_url);
  if (denied) return rejected(deps, actor, 'saml', denied);
  const now = deps.clock.now();
  const parsed = parseCertificate(input.idp_certificate);
  if ('problem' in parsed) return rejected(deps, actor, 'saml', parsed.problem);
  const invalid = certificateValidityProblem(parsed.cert, now);
  if (invalid) return rejected(deps, actor, 'saml', invalid);
  const c = parsed.cert;
  await saveSamlSettings(
    deps.db,
    actor.tenantId,
    {
      idp_entity_id: input.idp_entity_id,
      idp_sso_url: input.idp_sso_url,
      idp_certificate: c.pem,
      certificate: {
        subject: c.subject,
        not_before: c.notBefore.toISOString(),
        not_after: c.notAfter.toISOString(),
        fingerprint_sha256: c.fingerprintSha256,
      },
      attribute_mapping: input.attribute_mapping ?? {},
    },
    now,
  );
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: SsoAudit.samlConfigured,
    actorId: actor.id,
    userId: actor.userId,
    details: { provider_type: 'saml', idp_entity_id: input.idp_entity_id, certificate_not_after: c.notAfter.toISOString(), fingerprint_sha256: c.fingerprintSha256 },
    at: now,
  });
  return configView(deps, actor.tenantId, await getSsoConfig(deps.db, actor.tenantId));
}

export async function configureOidc(deps: SsoDeps, actor: Actor, input: OidcConfigInput): Promise<ConfigView> {
  const denied = await egressProblem(deps, 'issuer_url', input.issuer_url);
  if (denied) return rejected(deps, actor, 'oidc', denied);
  const discovered = await discoverIssuer(input.issuer_url, input.client_id, input.client_secret);
  if ('problem' in discovered) return rejected(deps, actor, 'oidc', discovered.problem);
  const now = deps.clock.now();
  await saveOidcSettings(
    deps.db,
    actor.tenantId,
    {
      client_id: input.client_id,
      issuer_url: input.issuer_url,
      scopes: [...new Set(input.scopes)],
      discovery: discovered.metadata,
      attribute_mapping: input.attribute_mapping ?? {},
    },
    deps.secrets.seal(input.client_secret),
    now,
  );
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: SsoAudit.oidcConfigured,
    actorId: actor.id,
    userId: actor.userId,
    details: { provider_type: 'oidc', issuer_url: input.issuer_url, client_id: input.client_id, scopes: input.scopes },
    at: now,
  });
  return configView(deps, actor.tenantId, await getSsoConfig(deps.db, actor.tenantId));
}

export async function configureGroupMapping(deps: SsoDeps, actor: Actor, input: GroupMappingInput) {
  const now = deps.clock.now();
  await saveGroupMapping(deps.db, actor.tenantId, input.group_mapping, input.default_role, now);
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: SsoAudit.groupMappingUpdated,
    actorId: actor.id,
    userId: actor.userId,
    details: { groups: Object.keys(input.group_mapping).length, default_role: input.default_role, group_mapping: input.group_mapping },
    at: now,
  });
  return { group_mapping: input.group_mapping, default_role: input.default_role };
}

export async function updateRuntimeConfig(deps: SsoDeps, actor: Actor, input: RuntimeConfigInput): Promise<ConfigView> {
  const now = deps.clock.now();
  const before = await getSsoConfig(deps.db, actor.tenantId);
  await saveRuntimeSettings(deps.db, actor.tenantId, { debugMode: input.debug_mode, sessionTtlSeconds: input.session_ttl_seconds }, now);
  if ((before?.debugMode ?? false) !== input.debug_mode) {
    await recordAudit(deps.db, {
      tenantId: actor.tenantId,
      action: SsoAudit.debugToggled,
      actorId: actor.id,
      userId: actor.userId,
      details: { debug_mode: input.debug_mode },
      at: now,
    });
  }
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: SsoAudit.configUpdated,
    actorId: actor.id,
    userId: actor.userId,
    details: { debug_mode: input.debug_mode, ...(input.session_ttl_seconds !== undefined ? { session_ttl_seconds: input.session_ttl_seconds } : {}) },
    at: now,
  });
  return configView(deps, actor.tenantId, await getSsoConfig(deps.db, actor.tenantId));
}

export async function ssoStatus(deps: SsoDeps, tenantId: string) {
  const cfg = await getSsoConfig(deps.db, tenantId);
  const provider = cfg?.activeProvider ?? null;
  const name = provider === 'saml' ? (cfg?.saml?.idp_entity_id ?? null) : provider === 'oidc' ? (cfg?.oidc?.issuer_url ?? null) : null;
  return {
    enabled: provider !== null,
    provider_type: provider,
    provider_name: name,
    last_login: cfg?.lastLoginAt ? cfg.lastLoginAt.toISOString() : null,
  };
}

