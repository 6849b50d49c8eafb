import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Principal } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import type { Viewer } from '../documents/acl.ts';
import { timeoutSignal } from '../platform/abort.ts';
import type { Queryable } from '../platform/db/index.ts';
import { Errors, type FieldProblem } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueue } from '../platform/jobs/index.ts';
import { Ops } from '../platform/operations.ts';
import { getKind, listKinds } from './catalog.ts';
import type { ConnectorDeps } from './deps.ts';
import { applySettingsPatch, buildSourceContext } from './kit/context.ts';
import { SourceSettingsError } from './kit/errors.ts';
import { completeOAuth, createOAuthUrl, type OAuthCallbackOutcome } from './oauth/flow.ts';
import { recentRuns } from './runs.ts';
import type { ConnectorDetails, CreatedConnector } from './schemas.ts';
import { nextIncrementalAt, scheduleFor } from './schedule.ts';
import { applyTransition, type ConnectorRecord, countConnectorDocuments, deleteConnectorRow, getConnector, insertConnector, updateConnectorFields } from './store.ts';
import { cancelConnectorJobs, VALIDATE_JOB } from './sync-request.ts';

export interface CreateConnectorInput {
  readonly connector_type: string;
  readonly display_name: string;
  readonly credentials?: Record<string, unknown>;
  readonly settings?: Record<string, unknown>;
}

function problems(prefix: string, error: z.ZodError): FieldProblem[] {
  return error.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].join('.'), message: i.message }));
}

/**
 * A source's type, credentials and settings checked against its kind's schemas (400 naming the field): what every
 * way of making a source goes through, the API's `createConnector` and the CLI's local sources alike.
 */
export function parseSourceInput(input: Omit<CreateConnectorInput, 'display_name'>) {
  const kind = getKind(input.connector_type);
  if (!kind) {
    throw Errors.validation(`unknown connector_type '${input.connector_type}': one of ${listKinds().map((k) => k.type).join(', ')}`, [
      { path: 'connector_type', message: 'unknown connector type' },
    ]);
  }
  const creds = kind.credentials.safeParse(input.credentials ?? {});
  if (!creds.success) {
    const p = problems('credentials', creds.error);
    throw Errors.validation(`invalid ${p[0]?.path ?? 'credentials'}: ${p[0]?.message ?? 'invalid'}`, p);
  }
  const settings = kind.settings.safeParse(input.settings ?? {});
  if (!settings.success) {
    const p = problems('settings', settings.error);
    throw Errors.validation(`invalid ${p[0]?.path ?? 'settings'}: ${p[0]?.message ?? 'invalid'}`, p);
  }
  return { kind, credentials: creds.data, settings: (settings.data ?? {}) as Record<string, unknown> };
}

/** Validates credentials and settings with the kind's schemas, seals the credentials, and starts `connecting`. */
export async function createConnector(deps: ConnectorDeps, principal: Principal, input: CreateConnectorInput): Promise<CreatedConnector> {
  const { kind, credentials, settings: settingsValue } = parseSourceInput(input);
  if (kind.checkSettings) {
    try {
      await kind.checkSettings(settingsValue);
    } catch (err) {
      if (!(err instanceof SourceSettingsError)) throw err;
      throw Errors.validation(`invalid settings: ${err.message}`, [{ path: 'settings', message: err.message }]);
    }
  }
  const needsOAuth = !kind.authTypes.includes('none') && kind.oauth !== undefined && !kind.hasUsableCredentials(credentials);
  if (needsOAuth && !deps.config.connectors.oauthClients[kind.type]) {
    throw Errors.unprocessable(
      'oauth_not_configured',
      `supply credentials for '${kind.type}', or configure its OAuth client: ATRIUM_OAUTH_CLIENTS={"${kind.type}":{"client_id":…,"client_secret":…}}`,
    );
  }
  const now = deps.clock.now();
  const schedule = scheduleFor(settingsValue, { intervalMinutes: deps.config.connectors.syncIntervalMinutes, fullAtUtc: deps.config.connectors.fullSyncAtUtc });
  const credentialJson = JSON.stringify(credentials ?? {});
  const hasCredentials = credentialJson !== '{}';
  const record = await insertConnector(deps.db, {
    id: newId(kind.type, '-'),
    tenantId: principal.tenantId,
    type: kind.type,
    displayName: input.display_name,
    settings: settingsValue,
    credentialsEnc: hasCredentials ? deps.secrets.seal(credentialJson) : null,
    webhookSecretEnc: kind.webhook ? deps.secrets.seal(randomBytes(32).toString('hex')) : null,
    // The first sync after validation is a full one, right away.
    nextIncrementalAt: kind.sync ? nextIncrementalAt(now, schedule) : null,
    nextFullAt: kind.sync ? now : null,
  });
  await recordAudit(deps.db, {
    tenantId: principal.tenantId,
    action: Ops.connectorCreated,
    actorId: principal.id,
    userId: principal.userId,
    details: { connector_id: record.id, connector_type: kind.type, display_name: record.displayName },
  });
  let oauthUrl: string | null = null;
  if (kind.authTypes.includes('none')) {
    await applyTransition(deps.db, principal.tenantId, record.id, 'credentials_valid');
  } else if (needsOAuth) {
    oauthUrl = (await createOAuthUrl(deps, { tenantId: principal.tenantId, connectorId: record.id, connectorType: kind.type })).url;
  } else {
    await queueValidation(deps, principal.tenantId, record.id);
  }
  return { connector_id: record.id, connector_type: kind.type, display_name: record.displayName, status: record.status, oauth_url: oauthUrl };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The full record for GET /v1/connectors/{id}: settings, schedule, sync history; never credentials or tokens.
 * `document_count` counts only the documents `viewer` may read.
 */
export async function describeConnector(deps: ConnectorDeps, tenantId: string, id: string, viewer: Viewer): Promise<ConnectorDetails> {
  const c = await getConnector(deps.db, tenantId, id);
  if (!c) throw Errors.notFound('connector', id);
  return {
    connector_id: c.id,
    connector_type: c.type,
    display_name: c.displayName,
    status: c.status,
    status_reason: c.statusReason,
    last_sync_at: iso(c.lastSyncAt),
    last_error: c.lastError,
    document_count: await countConnectorDocuments(deps.db, tenantId, id, viewer),
    settings: c.settings,
    credentials_configured: c.credentialsEnc !== null,
    oauth: { connected: c.oauthTokensEnc !== null, token_expires_at: iso(c.tokenExpiresAt) },
    schedule: { next_incremental_at: iso(c.nextIncrementalAt), next_full_at: iso(c.nextFullAt) },
    rate_limited_until: iso(c.rateLimitedUntil),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    sync_runs: await recentRuns(deps.db, tenantId, id),
  };
}

/** Stops the connector's jobs, removes its documents and the connector itself; audited. */
export async function removeConnector(deps: ConnectorDeps, principal: Principal, id: string): Promise<{ connector_id: string; deleted: true; documents_deleted: number }> {
  const c = await getConnector(deps.db, principal.tenantId, id);
  if (!c) throw Errors.notFound('connector', id);
  const jobsCancelled = await cancelConnectorJobs(deps.db, principal.tenantId, id, deps.clock.now());
  // The row goes in the documents' deletion transaction: a push or sync page racing this delete either lands
  // before it (and is deleted with the rest) or finds the connector gone and stores nothing; no orphans.
  const dropRow = (tx: Queryable) => deleteConnectorRow(tx, principal.tenantId, id);
  const documentsDeleted = deps.connectorDocuments
    ? await deps.connectorDocuments.removeAll({ tenantId: principal.tenantId, connectorId: id, thenInTx: dropRow })
    : await dropRow(deps.db).then(() => 0);
  await recordAudit(deps.db, {
    tenantId: principal.tenantId,
    action: Ops.connectorDeleted,
    actorId: principal.id,
    userId: principal.userId,
    details: { connector_id: id, connector_type: c.type, documents_deleted: documentsDeleted, jobs_cancelled: jobsCancelled },
  });
  return { connector_id: id, deleted: true, documents_deleted: documentsDeleted };
}

/** Queues the `connector.validate` job (one per connector at a time): the credentials are checked against the vendor. */
async function queueValidation(deps: ConnectorDeps, tenantId: string, id: string): Promise<void> {
  await enqueue(deps.db, VALIDATE_JOB, tenantId, { connectorId: id });
}

/** Pause: cancels queued work; a running sync stops at its next checkpoint. Resume returns to where it was. */
export async function setPaused(deps: ConnectorDeps, principal: Principal, id: string, paused: boolean): Promise<ConnectorRecord> {
  const moved = await applyTransition(deps.db, principal.tenantId, id, paused ? 'pause' : 'resume', {
    reason: paused ? `paused by ${principal.id}` : null,
  });
  if (!moved.ok) {
    if (moved.current === null) throw Errors.notFound('connector', id);
    throw Errors.conflict(moved.reason, { status: moved.current });
  }
  if (paused) await cancelConnectorJobs(deps.db, principal.tenantId, id, deps.clock.now());
  // A pause while `connecting` cancelled the validation job: resuming into `connecting` queues it again, or the
  // connector would wait for a validation that never comes.
  if (!paused && moved.to === 'connecting') {
    await queueValidation(deps, principal.tenantId, id);
  }
  await recordAudit(deps.db, {
    tenantId: principal.tenantId,
    action: paused ? Ops.connectorPaused : Ops.connectorResumed,
    actorId: principal.id,
    userId: principal.userId,
    details: { connector_id: id, from: moved.from, to: moved.to },
  });
  const c = await getConnector(deps.db, principal.tenantId, id);
  if (!c) throw Errors.notFound('connector', id);
  return c;
}

/** Replaces a connector's credentials (sealed) and re-validates them: `disconnected`/`error` → `connecting`. */
export async function replaceCredentials(deps: ConnectorDeps, principal: Principal, id: string, credentials: Record<string, unknown>): Promise<ConnectorRecord> {
  const c = await getConnector(deps.db, principal.tenantId, id);
  if (!c) throw Errors.notFound('connector', id);
  const kind = getKind(c.type);
  if (!kind || kind.authTypes.includes('none')) throw Errors.unprocessable('no_credentials', `'${c.type}' connectors take no credentials`);
  const parsed = kind.credentials.safeParse(credentials);
  if (!parsed.success) {
    const p = problems('credentials', parsed.error);
    throw Errors.validation(`invalid ${p[0]?.path ?? 'credentials'}: ${p[0]?.message ?? 'invalid'}`, p);
  }
  const moved = await applyTransition(deps.db, principal.tenantId, id, 'reconnect', { reason: 'validating the new credentials' });
  if (!moved.ok) throw Errors.conflict(`${moved.reason}; pause or wait for the sync to finish first`, { status: moved.current });
  // New credentials replace any OAuth tokens too: a stored token would otherwise take the place of the new
  // `access_token` at every sync (sync/context.ts), so the connector could not be repaired by new credentials.
  await updateConnectorFields(deps.db, principal.tenantId, id, { credentialsEnc: deps.secrets.seal(JSON.stringify(parsed.data)), oauthTokensEnc: null, tokenExpiresAt: null });
  await queueValidation(deps, principal.tenantId, id);
  await recordAudit(deps.db, { tenantId: principal.tenantId, action: Ops.connectorCredentialsReplaced, actorId: principal.id, userId: principal.userId, details: { connector_id: id } });
  const updated = await getConnector(deps.db, principal.tenantId, id);
  if (!updated) throw Errors.notFound('connector', id);
  return updated;
}

/**
 * The authorization URL for `connector_type`: for an existing connector (`connectorId`: connect or reconnect it), or,
 * without one, for a new connector that the callback creates once the code exchange succeeds.
 */
export async function oauthUrlFor(
  deps: ConnectorDeps,
  principal: Principal,
  input: { connectorType: string; connectorId?: string; displayName?: string },
): Promise<{ url: string; state: string }> {
  const kind = getKind(input.connectorType);
  if (!kind) {
    throw Errors.validation(`unknown connector_type '${input.connectorType}': one of ${listKinds().map((k) => k.type).join(', ')}`, [
      { path: 'connector_type', message: 'unknown connector type' },
    ]);
  }
  if (!input.connectorId) {
    return createOAuthUrl(deps, { tenantId: principal.tenantId, connectorId: null, connectorType: kind.type, displayName: input.displayName, actor: { id: principal.id, userId: principal.userId } });
  }
  const c = await getConnector(deps.db, principal.tenantId, input.connectorId);
  if (!c) throw Errors.notFound('connector', input.connectorId);
  if (c.type !== kind.type) {
    throw Errors.validation(`connector '${c.id}' is a '${c.type}' connector, not '${kind.type}'`, [{ path: 'connector_type', message: 'does not match the connector' }]);
  }
  return createOAuthUrl(deps, { tenantId: principal.tenantId, connectorId: c.id, connectorType: c.type, connector: c });
}

/**
 * The OAuth callback. A connector it created and no display name was asked for is named after the vendor account
 * the token belongs to (`<Kind> (<account>)`, from the kind's own credential check), when the vendor answers it.
 */
export async function completeOAuthCallback(deps: ConnectorDeps, input: { state: string; code?: string; error?: string }, log: Logger): Promise<OAuthCallbackOutcome> {
  const outcome = await completeOAuth(deps, input);
  if (!outcome.ok || outcome.named) return outcome;
  const c = await getConnector(deps.db, outcome.tenantId, outcome.connectorId);
  const kind = c ? getKind(c.type) : undefined;
  if (!c || !kind?.validate) return outcome;
  try {
    const source = await buildSourceContext(deps, c, kind, { signal: timeoutSignal(15_000), log });
    const check = await kind.validate(source);
    if (check.ok) await applySettingsPatch(deps, c, kind, source, check.settings);
    if (check.ok && check.account) await updateConnectorFields(deps.db, c.tenantId, c.id, { displayName: `${kind.displayName} (${check.account})`.slice(0, 200) });
  } catch (err) {
    // The connector works without a better name; the first sync reports any real problem.
    log.warn({ connector_id: c.id, err: err instanceof Error ? err.message : String(err) }, 'could not name the new OAuth connector after its vendor account');
  }
  return outcome;
}
