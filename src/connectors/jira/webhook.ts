import { createHmac } from 'node:crypto';
import { constantTimeEqual, type SourceDocument, VendorHttpError, type WebhookCapability, type WebhookVerification } from '../kit/index.ts';
import { type JiraCtx, jiraJson, restBase } from './client.ts';
import { commentPrefix, ISSUE_FIELDS, issueExternalId, type JiraIssue, jiraIssue } from './map.ts';
import type { JiraCredentials, JiraSettings } from './schemas.ts';
import { issueDocuments } from './sync.ts';

export const JIRA_WEBHOOK_EVENTS = ['jira:issue_created', 'jira:issue_updated', 'jira:issue_deleted', 'comment_created', 'comment_updated', 'comment_deleted'] as const;

/** The `X-Hub-Signature` value Jira sends for a secret admin webhook: `sha256=` + hex HMAC-SHA256 of the raw body. */
export function jiraSignature(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * Jira admin webhooks registered with a secret sign each delivery (WebSub style, `X-Hub-Signature: sha256=<hex>`).
 * The payload carries no signed timestamp window: a replay cannot do harm because every delivery is applied by
 * reading the issue's current state from the API (a replayed `jira:issue_deleted` for a live issue upserts it).
 */
export function verifyJiraDelivery(input: { signature: string | undefined; rawBody: string; secret: string }): WebhookVerification {
  const sig = input.signature?.trim();
  if (!sig) return { ok: false, reason: 'missing X-Hub-Signature header (register the Jira webhook with this secret)' };
  if (!sig.toLowerCase().startsWith('sha256=')) return { ok: false, reason: 'X-Hub-Signature is not sha256=<hex>' };
  const expected = jiraSignature(input.secret, input.rawBody);
  return constantTimeEqual(expected, `sha256=${sig.slice(7).toLowerCase()}`) ? { ok: true } : { ok: false, reason: 'X-Hub-Signature does not match the payload' };
}

interface Delivery {
  webhookEvent?: string;
  issue?: { id?: string | number; key?: string };
  comment?: { id?: string | number };
}

/** The issue as the API has it now, or null when Jira no longer has it (or the account can no longer see it). */
async function currentIssue(ctx: JiraCtx, apiBase: string, id: string): Promise<JiraIssue | null> {
  const fields = ctx.settings.include_comments ? [...ISSUE_FIELDS, 'comment'] : ISSUE_FIELDS;
  try {
    return jiraIssue.parse(await jiraJson<unknown>(ctx, apiBase, `/rest/api/3/issue/${encodeURIComponent(id)}`, { query: { fields: fields.join(',') } }));
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

/** Whether the issue is in the connector's scope: its `projects`, and its extra `jql` (asked of Jira, which evaluates it). */
async function inScope(ctx: JiraCtx, apiBase: string, issue: JiraIssue): Promise<boolean> {
  if (ctx.settings.projects && !ctx.settings.projects.includes(issue.fields.project.key)) return false;
  if (!ctx.settings.jql) return true;
  const r = await jiraJson<{ issues?: unknown[] }>(ctx, apiBase, '/rest/api/3/search/jql', { method: 'POST', json: { jql: `id = ${issue.id} AND (${ctx.settings.jql})`, maxResults: 1, fields: ['id'] } });
  return (r.issues ?? []).length > 0;
}

/**
 * Issue and comment events (`webhookEvent`): the delivery names the issue; the connector reads the issue (and its
 * comments) as Jira has it now and upserts it, removing comments that are gone. Jira answering 404 (deleted, or no
 * longer visible) or the issue leaving the connector's projects / JQL removes the issue and its comments.
 */
export const jiraWebhook: WebhookCapability<JiraCredentials, JiraSettings> = {
  events: JIRA_WEBHOOK_EVENTS,
  eventName: ({ payload }) => {
    const e = (payload as Delivery | null)?.webhookEvent;
    return typeof e === 'string' && e ? e : 'unknown';
  },
  async verify({ headers, rawBody, secret }) {
    return verifyJiraDelivery({ signature: headers['x-hub-signature'], rawBody, secret });
  },
  async changes(ctx, { payload }) {
    const p = (payload ?? {}) as Delivery;
    const event = typeof p.webhookEvent === 'string' ? p.webhookEvent : 'unknown';
    const none = { documents: [] as SourceDocument[], deleted: [] as string[], event };
    const issueId = p.issue?.id === undefined ? '' : String(p.issue.id);
    if (!(JIRA_WEBHOOK_EVENTS as readonly string[]).includes(event) || !/^\d+$/.test(issueId)) return none;
    if (event.startsWith('comment_') && !ctx.settings.include_comments) return none;
    const apiBase = await restBase(ctx);
    const issue = await currentIssue(ctx, apiBase, issueId);
    if (!issue || !(await inScope(ctx, apiBase, issue))) {
      const comments = (await ctx.stored(commentPrefix(issueId))).map((s) => s.external_id);
      return { ...none, deleted: [issueExternalId(issueId), ...comments] };
    }
    return { ...(await issueDocuments(ctx, apiBase, issue, { findDeletedComments: true })), event };
  },
};
