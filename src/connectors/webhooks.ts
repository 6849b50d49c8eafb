import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Principal } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { Errors } from '../platform/errors.ts';
import { defineJobKind, enqueue, type JobHandler, jobHandler, NonRetriableError, RetryAfterError } from '../platform/jobs/index.ts';
import { Ops } from '../platform/operations.ts';
import { buildSourceContext, credentialMasker, findVendorError, maskedError, shareRateLimit } from './kit/context.ts';
import { rateLimitDelayMs } from './kit/limits.ts';
import { VendorAuthError, VendorRateLimitedError } from './kit/errors.ts';
import { getKind } from './catalog.ts';
import type { AnyKind } from './kit/contract.ts';
import type { ConnectorDeps } from './deps.ts';
import { type ConnectorRecord, getConnector, rowToConnector, updateConnectorFields } from './store.ts';
import { timeoutSignal } from '../platform/abort.ts';

export const webhookDeliveryPath = (connectorId: string) => `/v1/connectors/${connectorId}/webhook/deliveries`;

/**
 * Enables real-time sync: (re)generates the webhook secret, stores it sealed, and returns it with the
 * delivery URL to paste into the vendor's webhook settings. The secret is shown only in this answer.
 * A vendor-issued secret (Slack's signing secret, in the credentials) is required instead and never returned.
 */
export async function enableWebhook(deps: ConnectorDeps, principal: Principal, connectorId: string) {
  const c = await getConnector(deps.db, principal.tenantId, connectorId);
  if (!c) throw Errors.notFound('connector', connectorId);
  const kind = getKind(c.type);
  if (!kind?.webhook) throw Errors.unprocessable('webhook_unsupported', `'${c.type}' connectors do not receive webhooks`);
  // Vendor-issued secret (Slack): it stays in the credentials and is never echoed; otherwise we generate one.
  const vendorSecret = kind.webhook.secretFromCredentials ? credentialSecret(deps, c, kind) : undefined;
  if (kind.webhook.secretFromCredentials && !vendorSecret) {
    throw Errors.unprocessable('webhook_secret_missing', `'${c.type}' webhooks are signed with the vendor's signing secret: add it to the credentials (PUT /v1/connectors/${connectorId}/credentials) first`);
  }
  const secret = vendorSecret ?? randomBytes(32).toString('hex');
  await updateConnectorFields(deps.db, principal.tenantId, connectorId, { webhookSecretEnc: deps.secrets.seal(secret) });
  await recordAudit(deps.db, { tenantId: principal.tenantId, action: Ops.connectorWebhookEnabled, actorId: principal.id, userId: principal.userId, details: { connector_id: connectorId } });
  return {
    connector_id: connectorId,
    delivery_url: `${deps.config.publicUrl}${webhookDeliveryPath(connectorId)}`,
    secret: vendorSecret ? null : secret,
    content_type: 'application/json',
    events: [...kind.webhook.events],
  };
}

export type WebhookOutcome =
  | { status: 'applied'; event: string; upserted: number; deleted: number }
  | { status: 'ignored'; event: string; reason: string }
  | { status: 'accepted'; event: string; reason: string; job_id: string }
  | { status: 'challenge'; challenge: string }
  | { status: 'rejected'; reason: string };

/** The signing secret a vendor issued, read from the connector's current (sealed) credentials. */
function credentialSecret(deps: ConnectorDeps, c: ConnectorRecord, kind: AnyKind): string | undefined {
  if (!c.credentialsEnc || !kind.webhook?.secretFromCredentials) return undefined;
  const parsed = kind.credentials.safeParse(JSON.parse(deps.secrets.open(c.credentialsEnc)));
  return parsed.success ? kind.webhook.secretFromCredentials(parsed.data) || undefined : undefined;
}

/** An inbound delivery: verifies the vendor signature over the raw body, then applies the mapped changes. */
export async function receiveWebhook(
  deps: ConnectorDeps,
  input: { connectorId: string; headers: Record<string, string | undefined>; rawBody: string; log: Logger },
): Promise<WebhookOutcome> {
  // The delivery carries no API key: the connector id locates the tenant, the signature proves the sender.
  const r = await deps.db.query('SELECT * FROM connectors WHERE id = $1', [input.connectorId]);
  const row = r.rows[0];
  // One answer for "no such connector" and "no webhook on it": an unauthenticated caller learns nothing about
  // which connector ids exist.
  const noWebhook = { status: 'rejected', reason: 'no webhook is enabled at this URL' } as const;
  if (!row) return noWebhook;
  const c = rowToConnector(row);
  const kind = getKind(c.type);
  if (!kind?.webhook || !c.webhookSecretEnc) return noWebhook;
  // A vendor-issued secret is read from the current credentials, so rotating it there takes effect at once.
  const secret = kind.webhook.secretFromCredentials ? credentialSecret(deps, c, kind) : deps.secrets.open(c.webhookSecretEnc);
  if (!secret) return { status: 'rejected', reason: 'no signing secret is configured for this connector' };
  const verified = await kind.webhook.verify({ headers: input.headers, rawBody: input.rawBody, secret, now: deps.clock.now() });
  if (!verified.ok) return { status: 'rejected', reason: verified.reason };
  let payload: unknown;
  try {
    payload = JSON.parse(input.rawBody);
  } catch {
    return { status: 'rejected', reason: 'the body is not JSON' };
  }
  const handshake = kind.webhook.handshake?.(payload);
  if (handshake) return { status: 'challenge', challenge: handshake.challenge };
  const webhook = kind.webhook;
  if (c.status === 'paused' || c.status === 'disconnected' || c.status === 'connecting') {
    // The vendor's own event name, as the kind reads it (a header or the payload).
    const event = webhook.eventName({ headers: input.headers, payload });
    return { status: 'ignored', event, reason: `connector is ${c.status}` };
  }
  if (!webhook.ackWithinMs) return applyDelivery(deps, c, kind, { headers: input.headers, payload, signal: AbortSignal.timeout(30_000), log: input.log });
  // The vendor retries a delivery it has no answer to by its deadline: answer in time. What is not applied by then
  // goes to a durable job (committed before we answer), so an acknowledged event survives this process dying.
  const controller = new AbortController();
  const running = applyDelivery(deps, c, kind, { headers: input.headers, payload, signal: AbortSignal.any([controller.signal, timeoutSignal(300_000)]), log: input.log });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), webhook.ackWithinMs);
  });
  const first = await Promise.race([running, late]).finally(() => clearTimeout(timer));
  if (first !== 'late') return first;
  const { job, created } = await enqueue(deps.db, WEBHOOK_JOB, c.tenantId, {
    connectorId: c.id,
    headers: storableHeaders(input.headers),
    payload,
    deliveryHash: createHash('sha256').update(input.rawBody).digest('hex'),
  });
  // The in-process attempt stops before writing anything more; the job applies the delivery (idempotently).
  controller.abort(new Error('handed to the durable webhook job'));
  running.catch(() => undefined);
  input.log.info({ connectorId: c.id, jobId: job.id, created }, 'webhook delivery handed to a durable job after the acknowledgement deadline');
  return { status: 'accepted', event: 'pending', reason: `still applying after ${webhook.ackWithinMs} ms; queued as job ${job.id}`, job_id: job.id };
}

/** Delivery headers a job may keep: no signatures, cookies or authorization (a job row holds no secret or proof). */
function storableHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined && !/signature|authorization|cookie|token|secret/i.test(k)) out[k] = v;
  }
  return out;
}

/**
 * Applies a verified delivery: the kind maps it to documents and deletions, which are written idempotently
 * (upserts on external_id). A vendor 429 met here blocks the connector in every process (shared bucket).
 */
async function applyDelivery(
  deps: ConnectorDeps,
  c: ConnectorRecord,
  kind: AnyKind,
  input: { headers: Record<string, string | undefined>; payload: unknown; deferred?: boolean; signal: AbortSignal; log: Logger },
): Promise<WebhookOutcome> {
  const webhook = kind.webhook;
  if (!webhook) throw new Error(`'${c.type}' connectors do not receive webhooks`);
  try {
    const source = await buildSourceContext(deps, c, kind, { signal: input.signal, log: input.log });
    const changes = await webhook.changes(source, { headers: input.headers, payload: input.payload, deferred: input.deferred });
    // Handed to the durable job meanwhile: write nothing more here.
    input.signal.throwIfAborted();
    const store = deps.connectorDocuments;
    if (!store) throw new Error('no document store composed');
    let upserted = 0;
    let deleted = 0;
    if (changes.documents.length > 0) {
      // A delivery older than what is stored (late, retried or replayed) leaves the newer version in place.
      const u = await store.upsert({ tenantId: c.tenantId, connectorId: c.id, documents: changes.documents, onlyNewer: true });
      upserted = u.added + u.updated;
    }
    if (changes.deleted.length > 0) deleted = await store.remove({ tenantId: c.tenantId, connectorId: c.id, externalIds: changes.deleted });
    if (changes.documents.length === 0 && changes.deleted.length === 0) return { status: 'ignored', event: changes.event, reason: 'event carries no documents' };
    return { status: 'applied', event: changes.event, upserted, deleted };
  } catch (err) {
    if (!input.signal.aborted) await shareRateLimit(deps.db, c, err);
    throw err;
  }
}

/** The `connector.webhook` job: a verified delivery not applied by the vendor's acknowledgement deadline. */
export const WEBHOOK_JOB = defineJobKind({
  kind: 'connector.webhook',
  // `deliveryHash`: SHA-256 of the raw body (optional: jobs queued before it was stored have none).
  payload: z.object({ connectorId: z.string(), headers: z.record(z.string(), z.string()), payload: z.unknown(), deliveryHash: z.string().optional() }),
  maxAttempts: 5,
  // A vendor's retry of the same delivery while the job waits joins it.
  dedupeKey: (_tenantId, p) => `webhook:${p.connectorId}:${p.deliveryHash}`,
});
export const WEBHOOK_JOB_KIND = WEBHOOK_JOB.kind;

/**
 * The `connector.webhook` job: a delivery acknowledged at the vendor's deadline, applied by a worker with the same
 * code as inline deliveries (`deferred`: the kind reads the vendor's current state). Idempotent, so a re-leased job
 * (its worker died) applies it again harmlessly. A vendor 429 retries after its Retry-After.
 */
export function createWebhookJobHandler(deps: ConnectorDeps): JobHandler {
  return jobHandler(WEBHOOK_JOB, async (p, ctx) => {
    const c = await getConnector(deps.db, ctx.job.tenantId, p.connectorId);
    if (!c) return { skipped: 'connector deleted' };
    if (c.status === 'paused' || c.status === 'disconnected' || c.status === 'connecting') return { skipped: `connector is ${c.status}` };
    const kind = getKind(c.type);
    if (!kind?.webhook) throw new NonRetriableError(`'${c.type}' connectors do not receive webhooks`);
    try {
      return await applyDelivery(deps, c, kind, { headers: p.headers, payload: p.payload, deferred: true, signal: ctx.signal, log: ctx.log });
    } catch (err) {
      const vendor = findVendorError(err);
      if (vendor instanceof VendorRateLimitedError) throw new RetryAfterError('vendor rate limited', rateLimitDelayMs(ctx.job.attempts, vendor.retryAfterMs));
      // The job's last_error and the worker's log keep this message: never with a credential the vendor echoed.
      const mask = await credentialMasker(deps, c);
      if (vendor instanceof VendorAuthError) throw new NonRetriableError(mask(`the vendor rejected the credentials: ${vendor.message}`));
      throw maskedError(err, mask);
    }
  });
}
