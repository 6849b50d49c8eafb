import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Principal } from '../access/index.ts';
import { recordAudit } from '../audit/index.ts';
import { Errors } from '../platform/errors.ts';
import { Ops } from '../platform/operations.ts';
import { buildSourceContext } from '../sync/context.ts';
import { getKind } from './catalog.ts';
import type { AnyKind } from './contract.ts';
import type { ConnectorDeps } from './deps.ts';
import { type ConnectorRecord, getConnector, rowToConnector, updateConnectorFields } from './store.ts';

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
  | { status: 'accepted'; event: string; reason: string }
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
  if (!row) return { status: 'rejected', reason: 'unknown connector' };
  const c = rowToConnector(row);
  const kind = getKind(c.type);
  if (!kind?.webhook || !c.webhookSecretEnc) return { status: 'rejected', reason: 'webhooks are not enabled for this connector' };
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
  if (c.status === 'paused' || c.status === 'disconnected' || c.status === 'connecting') {
    return { status: 'ignored', event: input.headers['x-github-event'] ?? 'unknown', reason: `connector is ${c.status}` };
  }
  const webhook = kind.webhook;
  const apply = async (): Promise<WebhookOutcome> => {
    const source = await buildSourceContext(deps, c, kind, { signal: AbortSignal.timeout(webhook.ackWithinMs ? 300_000 : 30_000), log: input.log });
    const changes = await webhook.changes(source, { headers: input.headers, payload });
    const store = deps.connectorDocuments;
    if (!store) throw new Error('no document store composed');
    let upserted = 0;
    let deleted = 0;
    if (changes.documents.length > 0) {
      const u = await store.upsert({ tenantId: c.tenantId, connectorId: c.id, documents: changes.documents });
      upserted = u.added + u.updated;
    }
    if (changes.deleted.length > 0) deleted = await store.remove({ tenantId: c.tenantId, connectorId: c.id, externalIds: changes.deleted });
    if (changes.documents.length === 0 && changes.deleted.length === 0) return { status: 'ignored', event: changes.event, reason: 'event carries no documents' };
    return { status: 'applied', event: changes.event, upserted, deleted };
  };
  if (!webhook.ackWithinMs) return apply();
  // The vendor retries a delivery it has no answer to by its deadline: answer in time, finish in the background.
  const running = apply();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), webhook.ackWithinMs);
  });
  const first = await Promise.race([running, late]).finally(() => clearTimeout(timer));
  if (first !== 'late') return first;
  running.then(
    (o) => input.log.info({ connectorId: c.id, outcome: o }, 'webhook delivery applied after the acknowledgement'),
    (err: unknown) => input.log.error({ connectorId: c.id, err }, 'webhook delivery failed after the acknowledgement'),
  );
  return { status: 'accepted', event: 'pending', reason: `still applying after ${webhook.ackWithinMs} ms; finishing in the background` };
}
