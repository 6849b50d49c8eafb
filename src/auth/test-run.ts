import { recordAudit } from '../audit/index.ts';
import { mapIdentity } from './attributes.ts';
import { SsoAudit } from './audit-actions.ts';
import { certificateValidityProblem, parseCertificate } from './certificate.ts';
import { type Actor, type SsoDeps, ssoLog } from './deps.ts';
import { discoverIssuer } from './oidc.ts';
import { type Problem, problem } from './problems.ts';
import { roleForGroups } from './roles.ts';
import { spEndpoints } from './saml/sp.ts';
import { validateSamlResponse } from './saml/validate.ts';
import { assertionSeen, findRequest, getSsoConfig } from './store.ts';

export interface TestCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly problems: Problem[];
}

/**
 * Compares our clock with the IdP's `Date` header. Returns null when the IdP cannot be reached (reported as its
 * own check) or sends no Date header.
 */
async function probeClock(url: string, now: Date, skewMs: number): Promise<{ reachable: boolean; problem: Problem | null; offsetSeconds: number | null }> {
  try {
    const res = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(5000) });
    await res.body?.cancel();
    const date = res.headers.get('date');
    if (!date) return { reachable: true, problem: null, offsetSeconds: null };
    const offset = now.getTime() - new Date(date).getTime();
    // Date has one-second resolution: allow it on top of the skew.
    const p = Math.abs(offset) > skewMs + 1000
      ? problem('sso_clock_skew', `our clock differs from the IdP's by ${Math.round(offset / 1000)} s (allowed ${Math.round(skewMs / 1000)} s)`)
      : null;
    return { reachable: true, problem: p, offsetSeconds: Math.round(offset / 1000) };
  } catch (err) {
    return { reachable: false, problem: problem('sso_idp_unreachable', `could not reach ${new URL(url).origin}: ${(err as Error).message}`), offsetSeconds: null };
  }
}

type SsoConfig = NonNullable<Awaited<ReturnType<typeof getSsoConfig>>>;

/** Validates a pasted SAML response as the ACS would (request, replay, identity mapping) without consuming anything. */
async function dryRunSamlResponse(deps: SsoDeps, actor: Actor, cfg: SsoConfig, saml: NonNullable<SsoConfig['saml']>, samlResponse: string, now: Date) {
  const skewMs = deps.config.sso.clockSkewSeconds * 1000;
  let extracted: Record<string, unknown> | null = null;
  let mappedUser: Record<string, unknown> | null = null;
  const { entityId, acsUrl } = spEndpoints(deps.config.publicUrl);
  const result = await validateSamlResponse({
    samlResponse,
    idpEntityId: saml.idp_entity_id,
    idpCertificate: saml.idp_certificate,
    spEntityId: entityId,
    acsUrl,
    now,
    skewMs,
  });
  const problems: Problem[] = [...result.problems];
  const a = result.assertion;
  if (a) {
    if (a.inResponseTo) {
      const req = await findRequest(deps.db, a.inResponseTo);
      if (!req || req.tenantId !== actor.tenantId || req.provider !== 'saml') {
        problems.push(problem('saml_unknown_request', 'InResponseTo does not match a sign-in this service started'));
      } else if (req.consumedAt || req.expiresAt <= now) {
        problems.push(problem('saml_unknown_request', 'the sign-in request was already answered or has expired'));
      }
    }
    if (await assertionSeen(deps.db, actor.tenantId, a.assertionId)) {
      problems.push(problem('saml_replay', `assertion ${a.assertionId} was already used`));
    }
    extracted = {
      assertion_id: a.assertionId,
      issuer: a.issuer,
      name_id: a.nameId,
      name_id_format: a.nameIdFormat,
      in_response_to: a.inResponseTo,
      not_on_or_after: a.notOnOrAfter.toISOString(),
      attributes: a.attributes,
    };
    const mapped = mapIdentity(a.attributes, saml.attribute_mapping, a.nameId);
    if ('problem' in mapped) problems.push(mapped.problem);
    else {
      mappedUser = { ...mapped.identity, role: roleForGroups(mapped.identity.groups, cfg.groupMapping, cfg.defaultRole) };
    }
  }
  return { problems, extracted, mappedUser };
}

/**
 * POST /v1/auth/sso/test: checks the active configuration (certificate, IdP reachability and clock, discovery)
 * and dry-runs a pasted SAML response — never consuming a request, recording an assertion, creating a user or
 * starting a session.
 */
export async function runSsoTest(deps: SsoDeps, actor: Actor, input: { samlResponse?: string | undefined }) {
  const now = deps.clock.now();
  const cfg = await getSsoConfig(deps.db, actor.tenantId);
  const skewMs = deps.config.sso.clockSkewSeconds * 1000;
  const checks: TestCheck[] = [];
  let extracted: Record<string, unknown> | null = null;
  let mappedUser: Record<string, unknown> | null = null;
  let clockOffset: number | null = null;
  const add = (name: string, problems: (Problem | null)[]) => {
    const ps = problems.filter((p): p is Problem => p !== null);
    checks.push({ name, ok: ps.length === 0, problems: ps });
  };

  if (!cfg?.activeProvider) {
    add('configuration', [problem('sso_not_configured', 'no sign-on provider is configured')]);
  } else if (cfg.activeProvider === 'saml' && cfg.saml) {
    const saml = cfg.saml;
    const cert = parseCertificate(saml.idp_certificate);
    add('idp_certificate', ['problem' in cert ? cert.problem : certificateValidityProblem(cert.cert, now)]);
    const probe = await probeClock(saml.idp_sso_url, now, skewMs);
    clockOffset = probe.offsetSeconds;
    add('idp_reachable', [probe.reachable ? null : probe.problem]);
    add('clock', [probe.reachable ? probe.problem : null]);
    if (input.samlResponse !== undefined) {
      const dryRun = await dryRunSamlResponse(deps, actor, cfg, saml, input.samlResponse, now);
      extracted = dryRun.extracted;
      mappedUser = dryRun.mappedUser;
      // Duplicates (e.g. two timing problems) add nothing for the reader.
      const unique = new Map(dryRun.problems.map((p) => [p.message, p]));
      add('saml_response', [...unique.values()]);
    }
  } else if (cfg.activeProvider === 'oidc' && cfg.oidc && cfg.oidcClientSecretEnc) {
    let secret = '';
    try {
      secret = deps.secrets.open(cfg.oidcClientSecretEnc);
      add('client_secret', []);
    } catch {
      add('client_secret', [problem('oidc_token_invalid', 'the stored client secret cannot be decrypted: was ATRIUM_SECRET_KEY changed? Save the OIDC configuration again')]);
    }
    const discovered = await discoverIssuer(cfg.oidc.issuer_url, cfg.oidc.client_id, secret);
    add('discovery', ['problem' in discovered ? discovered.problem : null]);
    const probe = await probeClock(`${cfg.oidc.issuer_url.replace(/\/$/, '')}/.well-known/openid-configuration`, now, skewMs);
    clockOffset = probe.offsetSeconds;
    add('clock', [probe.reachable ? probe.problem : null]);
    if (input.samlResponse !== undefined) {
      add('saml_response', [problem('sso_not_configured', 'saml_response was given but the active provider is OIDC')]);
    }
  }

  const problems = checks.flatMap((c) => c.problems);
  const report = {
    test_mode: true as const,
    ok: problems.length === 0,
    provider_type: cfg?.activeProvider ?? null,
    checks: checks.map((c) => ({ name: c.name, ok: c.ok, problems: c.problems })),
    problems,
    clock_offset_seconds: clockOffset,
    extracted,
    mapped_user: mappedUser,
    user_created: false as const,
    session_created: false as const,
  };
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: SsoAudit.testRun,
    actorId: actor.id,
    userId: actor.userId,
    details: {
      provider_type: report.provider_type,
      ok: report.ok,
      checks: checks.map((c) => ({ name: c.name, ok: c.ok })),
      problems: problems.map((p) => ({ code: p.code, message: p.message, remedy: p.remedy })),
      saml_response_given: input.samlResponse !== undefined,
    },
    at: now,
  });
  ssoLog(deps, actor.tenantId, cfg, { ok: report.ok, codes: problems.map((p) => p.code) }, 'test run');
  return report;
}
