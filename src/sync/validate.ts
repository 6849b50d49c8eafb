import { getKind } from '../connectors/catalog.ts';
import type { ConnectorDeps } from '../connectors/deps.ts';
import { applySettingsPatch, buildSourceContext, credentialMasker, findVendorError, maskedError, shareRateLimit } from '../connectors/kit/context.ts';
import { authErrorMessage, SourceSettingsError, VendorAuthError } from '../connectors/kit/errors.ts';
import { applyTransition, getConnector } from '../connectors/store.ts';
import { type JobHandler, jobHandler } from '../platform/jobs/index.ts';
import { VALIDATE_JOB } from '../connectors/sync-request.ts';

/**
 * The `connector.validate` job: checks a new connector's credentials against the vendor. Valid → `connected`
 * (the scheduler then runs its first full sync); rejected → `error` with an actionable message, no retry loop.
 * Network failures retry with the job queue's backoff; the last attempt leaves the connector in `error`.
 */
export function createValidateHandler(deps: ConnectorDeps): JobHandler {
  return jobHandler(VALIDATE_JOB, async ({ connectorId }, ctx) => {
    const tenantId = ctx.job.tenantId;
    const connector = await getConnector(deps.db, tenantId, connectorId);
    if (connector?.status !== 'connecting') return { skipped: connector ? connector.status : 'deleted' };
    const kind = getKind(connector.type);
    if (!kind) return { skipped: 'unknown kind' };
    try {
      const source = await buildSourceContext(deps, connector, kind, { signal: ctx.signal, log: ctx.log });
      const check = kind.validate ? await kind.validate(source) : { ok: true as const };
      if (check.ok) {
        // What validation discovered (an Atlassian cloudId, a Drive's root) joins the settings, parsed like user input.
        await applySettingsPatch(deps, connector, kind, source, check.settings);
        // Also clears the last error (applyTransition): a failure from before new credentials is over.
        await applyTransition(deps.db, tenantId, connectorId, 'credentials_valid', { reason: check.account ? `authenticated as ${check.account}` : null });
        return { valid: true };
      }
      throw new VendorAuthError(check.message);
    } catch (err) {
      await shareRateLimit(deps.db, connector, err);
      // Vendors echo tokens in error bodies: the connector, the job's result and error, and the log get masked text.
      const mask = await credentialMasker(deps, connector);
      const vendor = findVendorError(err);
      const final = vendor instanceof VendorAuthError || ctx.job.attempts >= ctx.job.maxAttempts;
      if (!final) throw maskedError(err, mask);
      const message = mask(
        vendor instanceof VendorAuthError
          ? authErrorMessage(vendor)
          : `could not reach the vendor to check the credentials: ${err instanceof Error ? err.message : String(err)}`,
      );
      const event = vendor instanceof SourceSettingsError ? 'settings_invalid' : 'credentials_invalid';
      await applyTransition(deps.db, tenantId, connectorId, event, { reason: message, lastError: message });
      return { valid: false, message };
    }
  });
}
