import { type AuditActor, recordAudit } from '../audit/index.ts';
import type { Config } from '../config/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { checkEgress, EgressDeniedError } from '../platform/egress.ts';
import { Errors } from '../platform/errors.ts';
import type { Logger } from '../platform/log.ts';
import { Ops } from '../platform/operations.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { deleteNode, nodeBaseUrl, type RemoteNode, registerNode } from './nodes.ts';
import { leadsBackHere } from './remote.ts';
import { federationOrigin, listLocalSources } from './store.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '[::]']);

/** What registering a node needs; `AppDeps` satisfies it. */
export interface RegistrationDeps {
  readonly db: DatabaseExecutor;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly config: Pick<Config, 'publicUrl' | 'port' | 'host' | 'egress' | 'federation'>;
  readonly federation?: { readonly fetch?: typeof fetch };
}

/** A remote node as POST /v1/nodes takes it (already parsed). */
export interface NodeRegistration {
  readonly name: string;
  readonly url: string;
  readonly api_key: string;
}

/**
 * Whether a node URL names this very instance (its public URL, the Host it was reached by, or a loopback address
 * on its port): registering it would return every local item twice. A name that resolves here through DNS or a
 * proxy is not detected.
 */
function isThisInstance(config: RegistrationDeps['config'], url: string, requestHost: string | undefined): boolean {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const self = new URL(config.publicUrl);
  if (u.host === self.host && u.protocol === self.protocol) return true;
  if (requestHost && u.host === requestHost) return true;
  return LOOPBACK.has(u.hostname) && port === String(config.port) && (LOOPBACK.has(config.host) || config.host === u.hostname);
}

/**
 * Registers a remote Atrium node after the self-registration checks: the URL passes the egress policy, is not this
 * instance (by address, nor by asking the node whether it leads back here), and the name is not a local source's
 * id or another node's (409). Audits `federation.node_registered`. `requestHost` is the Host this request came by.
 */
export async function registerRemoteNode(
  deps: RegistrationDeps,
  actor: AuditActor,
  body: NodeRegistration,
  opts: { readonly requestHost?: string; readonly log?: Logger } = {},
): Promise<RemoteNode> {
  const now = deps.clock.now();
  // Every query key's federated query will call this URL with the node's key: the egress policy applies
  // (the fan-out checks again on each request, as a name may come to resolve elsewhere).
  try {
    await checkEgress(deps.config.egress, body.url, { log: opts.log });
  } catch (err) {
    if (err instanceof EgressDeniedError) throw Errors.egressDenied('body.url', err.message);
    throw err;
  }
  if (isThisInstance(deps.config, body.url, opts.requestHost)) {
    throw Errors.validation('url is this instance itself: its sources are already searched locally', [{ path: 'body.url', message: 'this instance' }]);
  }
  const sources = await listLocalSources(deps.db, actor.tenantId);
  if (sources.some((s) => s.id === body.name)) throw Errors.conflict(`'${body.name}' is already a local source id`);
  // A DNS name, another address or a proxy of this instance: only the node itself can tell (a node that is
  // down or slow is registered all the same; the federated query refuses the loop later).
  const origin = await federationOrigin(deps.db, actor.tenantId);
  if (origin && (await leadsBackHere(nodeBaseUrl(body.url), body.api_key, origin, { deadlineMs: Math.min(2000, deps.config.federation.deadlineMs), fetch: deps.federation?.fetch }))) {
    throw Errors.validation(
      "url leads back to this instance (the same tenant under another name or behind a proxy): its sources are already searched locally. If it is a copy of this instance's database instead, run `atrium tenants reset-origin <tenant>` there",
      [{ path: 'body.url', message: 'this instance' }],
    );
  }
  const created = await registerNode(deps.db, deps.secrets, { tenantId: actor.tenantId, name: body.name, url: body.url, apiKey: body.api_key, createdBy: actor.id, now });
  if (!created) throw Errors.conflict(`a node named '${body.name}' already exists`);
  await recordAudit(deps.db, { tenantId: actor.tenantId, action: Ops.federationNodeRegistered, actorId: actor.id, userId: actor.userId, at: now, details: { node_id: created.node_id, name: created.name, url: created.url } });
  return created;
}

/** Removes a remote node by id or name (404 when the tenant has none such) and audits `federation.node_removed`. */
export async function removeRemoteNode(db: DatabaseExecutor, actor: AuditActor, idOrName: string): Promise<void> {
  if (!(await deleteNode(db, actor.tenantId, idOrName))) throw Errors.notFound('node', idOrName);
  await recordAudit(db, { tenantId: actor.tenantId, action: Ops.federationNodeRemoved, actorId: actor.id, userId: actor.userId, details: { node: idOrName } });
}
