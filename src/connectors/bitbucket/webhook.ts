import { createHmac } from 'node:crypto';
import { constantTimeEqual, type SourceDocument, type WebhookCapability, type WebhookVerification } from '../kit/index.ts';
import { type BitbucketCtx, bitbucketFile, bitbucketJson, orNull } from './client.ts';
import {
  issue,
  issueExternalId,
  issueToDocument,
  pullRequest,
  pullRequestExternalId,
  pullRequestToDocument,
  readmeExternalId,
  readmeToDocument,
  repoRef,
  repository,
  repositoryToDocument,
} from './map.ts';
import type { BitbucketCredentials, BitbucketSettings } from './schemas.ts';
import { comments, repoWanted } from './sync.ts';

export const BITBUCKET_WEBHOOK_EVENTS = [
  'repo:push',
  'repo:updated',
  'pullrequest:created',
  'pullrequest:updated',
  'pullrequest:fulfilled',
  'pullrequest:rejected',
  'pullrequest:comment_created',
  'pullrequest:comment_updated',
  'pullrequest:comment_deleted',
  'issue:created',
  'issue:updated',
  'issue:comment_created',
] as const;

/** The `X-Hub-Signature` Bitbucket Cloud sends for a webhook with a secret: `sha256=` + hex HMAC-SHA256 of the raw body. */
export function bitbucketSignature(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * Bitbucket Cloud signs deliveries of webhooks registered with a secret (`X-Hub-Signature: sha256=<hex>`); there is no
 * signed timestamp, so a replay can only re-apply the current state: every delivery is applied by re-reading the object.
 */
export function verifyBitbucketDelivery(input: { signature: string | undefined; rawBody: string; secret: string }): WebhookVerification {
  const sig = input.signature?.trim();
  if (!sig) return { ok: false, reason: 'missing X-Hub-Signature header (register the Bitbucket webhook with this secret)' };
  if (!sig.toLowerCase().startsWith('sha256=')) return { ok: false, reason: 'X-Hub-Signature is not sha256=<hex>' };
  const expected = bitbucketSignature(input.secret, input.rawBody);
  return constantTimeEqual(expected, `sha256=${sig.slice(7).toLowerCase()}`) ? { ok: true } : { ok: false, reason: 'X-Hub-Signature does not match the payload' };
}

interface Delivery {
  repository?: { full_name?: string; uuid?: string };
  pullrequest?: { id?: number };
  issue?: { id?: number };
}

const eventOf = (headers: Record<string, string | undefined>) => headers['x-event-key']?.trim() || 'unknown';

/**
 * Applies a delivery by re-reading what it names from the API (the payload may be stale when deferred): the repository
 * (its privacy decides the ACL), then the pull request or issue with its comments, or — for a push — the repository
 * and its README. A pull request or issue Bitbucket no longer has (404) is deleted.
 */
async function apply(ctx: BitbucketCtx, event: string, p: Delivery): Promise<{ documents: SourceDocument[]; deleted: string[] }> {
  const none = { documents: [] as SourceDocument[], deleted: [] as string[] };
  const fullName = p.repository?.full_name;
  if (!fullName || !repoWanted(ctx.settings, fullName)) return none;
  if (ctx.settings.workspaces && !ctx.settings.workspaces.includes((fullName.split('/')[0] ?? '').toLowerCase())) return none;
  const rawRepo = await orNull(bitbucketJson<unknown>(ctx, `/2.0/repositories/${fullName}`));
  if (!rawRepo) return none;
  const repo = repository.parse(rawRepo);
  const ref = repoRef(repo);
  const base = `/2.0/repositories/${repo.full_name}`;
  if (event.startsWith('pullrequest:')) {
    const id = p.pullrequest?.id;
    if (!ctx.settings.include_pull_requests || typeof id !== 'number') return none;
    const raw = await orNull(bitbucketJson<unknown>(ctx, `${base}/pullrequests/${id}`));
    if (!raw) return { ...none, deleted: [pullRequestExternalId(ref.uuid, id)] };
    return { ...none, documents: [pullRequestToDocument(ref, pullRequest.parse(raw), await comments(ctx, `${base}/pullrequests/${id}/comments`))] };
  }
  if (event.startsWith('issue:')) {
    const id = p.issue?.id;
    if (!ctx.settings.include_issues || typeof id !== 'number') return none;
    const raw = ref.hasIssues ? await orNull(bitbucketJson<unknown>(ctx, `${base}/issues/${id}`)) : null;
    if (!raw) return { ...none, deleted: [issueExternalId(ref.uuid, id)] };
    return { ...none, documents: [issueToDocument(ref, issue.parse(raw), await comments(ctx, `${base}/issues/${id}/comments`))] };
  }
  // repo:push / repo:updated: the repository itself, and its README when the main branch may have changed.
  const documents = [repositoryToDocument(repo)];
  const deleted: string[] = [];
  if (ctx.settings.include_readme && ref.mainBranch) {
    const text = await bitbucketFile(ctx, `${base}/src/${encodeURIComponent(ref.mainBranch)}/README.md`);
    if (text?.trim()) documents.push(readmeToDocument(ref, text));
    else deleted.push(readmeExternalId(ref.uuid));
  }
  return { documents, deleted };
}

export const bitbucketWebhook: WebhookCapability<BitbucketCredentials, BitbucketSettings> = {
  events: BITBUCKET_WEBHOOK_EVENTS,
  eventName: ({ headers }) => eventOf(headers),
  async verify({ headers, rawBody, secret }) {
    return verifyBitbucketDelivery({ signature: headers['x-hub-signature'], rawBody, secret });
  },
  async changes(ctx, { headers, payload }) {
    const event = eventOf(headers);
    if (!(BITBUCKET_WEBHOOK_EVENTS as readonly string[]).includes(event)) return { documents: [], deleted: [], event };
    return { ...(await apply(ctx, event, (payload ?? {}) as Delivery)), event };
  },
};


