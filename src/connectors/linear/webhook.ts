import { createHmac } from 'node:crypto';
import { constantTimeEqual, type SourceContext, type SourceDocument, type WebhookCapability } from '../kit/index.ts';
import { isLinearNotFound, linearRequest } from './client.ts';
import type { LinearCredentials, LinearSettings } from './schemas.ts';
import { ENTITIES, type Entity, type EntityName } from './sync.ts';

type Ctx = SourceContext<LinearCredentials, LinearSettings>;

/** Linear refuses replays older than a minute (its SDK's window); so do we. */
export const WEBHOOK_TOLERANCE_MS = 60_000;

/** Linear's webhook `type` → our entity and the single-object query field. */
const TYPES: Record<string, { entity: EntityName; query: string }> = {
  Issue: { entity: 'issues', query: 'issue' },
  Comment: { entity: 'comments', query: 'comment' },
  Project: { entity: 'projects', query: 'project' },
  Cycle: { entity: 'cycles', query: 'cycle' },
  Document: { entity: 'documents', query: 'document' },
  ProjectMilestone: { entity: 'milestones', query: 'projectMilestone' },
  Attachment: { entity: 'attachments', query: 'attachment' },
};

const PREFIX: Record<EntityName, string> = {
  issues: 'issue',
  comments: 'comment',
  projects: 'project',
  cycles: 'cycle',
  documents: 'document',
  milestones: 'milestone',
  attachments: 'attachment',
};

export function linearSignature(secret: string, rawBody: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** `Linear-Signature` = hex HMAC-SHA256 of the raw body; `webhookTimestamp` (ms, inside the signed body) within the window. */
export function verifyLinearDelivery(input: { signature: string | undefined; rawBody: string; secret: string; now: Date }): { ok: true } | { ok: false; reason: string } {
  if (!input.signature) return { ok: false, reason: 'missing Linear-Signature header' };
  if (!constantTimeEqual(linearSignature(input.secret, input.rawBody), input.signature)) return { ok: false, reason: 'Linear-Signature does not match the payload' };
  let ts: unknown;
  try {
    ts = (JSON.parse(input.rawBody) as { webhookTimestamp?: unknown }).webhookTimestamp;
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return { ok: false, reason: 'missing webhookTimestamp' };
  if (Math.abs(input.now.getTime() - ts) > WEBHOOK_TOLERANCE_MS) return { ok: false, reason: 'webhookTimestamp is outside the 60 s window (replayed or delayed delivery)' };
  return { ok: true };
}

interface TeamRef {
  id: string;
  key: string;
}
/** The teams an object belongs to, read from the nodes our queries select. */
function teamsOf(node: Record<string, unknown>): TeamRef[] {
  const team = node.team as TeamRef | undefined;
  if (team) return [team];
  const issue = node.issue as { team?: TeamRef } | null | undefined;
  if (issue?.team) return [issue.team];
  const teams = (node.teams ?? (node.project as { teams?: unknown } | null | undefined)?.teams) as { nodes?: TeamRef[] } | undefined;
  return teams?.nodes ?? [];
}

function inScope(settings: LinearSettings, node: Record<string, unknown>): boolean {
  const wanted = settings.teams;
  if (!wanted) return true;
  return teamsOf(node).some((t) => wanted.includes(t.key) || wanted.includes(t.id));
}

/** Linear answers an unknown (deleted) id with an `Entity not found` error: that object is gone. */
async function fetchOne(ctx: Ctx, field: string, fields: string, id: string): Promise<Record<string, unknown> | null> {
  try {
    const r = await linearRequest<Record<string, Record<string, unknown> | null>>(ctx, `query One($id: String!) { ${field}(id: $id) { ${fields} } }`, { id });
    return r[field] ?? null;
  } catch (err) {
    if (isLinearNotFound(err)) return null;
    throw err;
  }
}

async function workspaceUrl(ctx: Ctx): Promise<string> {
  const r = await linearRequest<{ organization: { urlKey: string } }>(ctx, 'query { organization { urlKey } }');
  return `https://linear.app/${r.organization.urlKey}`;
}

/**
 * Linear data-change webhooks (`{action: create|update|remove, type, data, url, webhookTimestamp}`): a removal
 * deletes the document; a create or update refetches the object through the API (the payload is a partial
 * snapshot), so webhook and sync documents are identical. Archived objects are removed unless include_archived,
 * and so are objects now outside the connector's teams.
 */
export const linearWebhook: WebhookCapability<LinearCredentials, LinearSettings> = {
  events: Object.keys(TYPES),
  eventName({ payload }) {
    const p = payload as { action?: string; type?: string };
    return p.type ? `${p.type}.${p.action ?? ''}` : 'unknown';
  },
  async verify({ headers, rawBody, secret, now }) {
    return verifyLinearDelivery({ signature: headers['linear-signature'], rawBody, secret, now });
  },
  async changes(ctx, { payload }) {
    const p = payload as { action?: string; type?: string; data?: { id?: string } };
    const type = p.type ?? '';
    const event = `${type}.${p.action ?? ''}`;
    const target = TYPES[type];
    const id = p.data?.id;
    const none = { documents: [] as SourceDocument[], deleted: [] as string[], event };
    if (!target || !id) return none;
    const entity: Entity = ENTITIES[target.entity];
    if (!entity.enabled(ctx.settings)) return none;
    const externalId = `${PREFIX[target.entity]}:${id}`;
    if (p.action === 'remove') return { ...none, deleted: [externalId] };
    const node = await fetchOne(ctx, target.query, entity.fields, id);
    if (!node) return { ...none, deleted: [externalId] };
    // Out of the connector's teams (e.g. moved to another team): drop our copy if we had one.
    if (!inScope(ctx.settings, node)) return { ...none, deleted: [externalId] };
    if (node.archivedAt && !ctx.settings.include_archived) return { ...none, deleted: [externalId] };
    const url = target.entity === 'cycles' ? await workspaceUrl(ctx) : 'https://linear.app';
    return { ...none, documents: [entity.toDocument(node as unknown as Parameters<Entity["toDocument"]>[0], url)] };
  },
};
