import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import { adfToText } from './adf.ts';

/** The Jira REST v3 shapes the connector reads (only the fields it asks for), and their pure mapping to documents. */
const user = z
  .object({ accountId: z.string(), displayName: z.string().optional(), emailAddress: z.string().optional() })
  .nullable()
  .optional();
export type JiraUser = z.infer<typeof user>;

export const jiraComment = z.object({
  id: z.string(),
  author: user,
  updateAuthor: user,
  /** ADF in REST v3. */
  body: z.unknown(),
  created: z.string(),
  updated: z.string().optional(),
  /** A comment restricted to a group or project role. */
  visibility: z.object({ type: z.string(), value: z.string().optional(), identifier: z.string().optional() }).nullable().optional(),
});
export type JiraComment = z.infer<typeof jiraComment>;

export const commentPage = z.object({ comments: z.array(jiraComment), total: z.number().optional(), startAt: z.number().optional(), maxResults: z.number().optional() });

const named = z.object({ name: z.string() }).nullable().optional();

export const jiraIssue = z.object({
  id: z.string(),
  key: z.string(),
  fields: z.object({
    summary: z.string().nullable().optional(),
    description: z.unknown().optional(),
    status: z
      .object({ name: z.string(), statusCategory: z.object({ key: z.string().optional(), name: z.string().optional() }).optional() })
      .nullable()
      .optional(),
    assignee: user,
    reporter: user,
    creator: user,
    labels: z.array(z.string()).optional(),
    priority: named,
    issuetype: named,
    resolution: named,
    project: z.object({ id: z.string(), key: z.string(), name: z.string().optional() }),
    created: z.string(),
    updated: z.string(),
    /** The issue security level (who may see the issue within its project). */
    security: z.object({ id: z.string(), name: z.string().optional() }).nullable().optional(),
    parent: z.object({ key: z.string() }).nullable().optional(),
    comment: commentPage.optional(),
  }),
});
export type JiraIssue = z.infer<typeof jiraIssue>;

export const jiraProject = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
  lead: user,
  projectTypeKey: z.string().optional(),
});
export type JiraProject = z.infer<typeof jiraProject>;

/** The issue fields a search or issue read asks for. */
export const ISSUE_FIELDS = ['summary', 'description', 'status', 'assignee', 'reporter', 'creator', 'labels', 'priority', 'issuetype', 'resolution', 'project', 'created', 'updated', 'security', 'parent'];

/** Jira's `2026-01-05T09:00:00.000+0000` (offset without a colon) as ISO 8601 UTC; unparseable values pass through. */
export function jiraTime(value: string): string {
  const d = new Date(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/**
 * A JQL date literal (`yyyy/MM/dd HH:mm`) for an instant. Jira reads JQL dates in the searching user's profile time
 * zone, so the instant is written in that zone (an unknown zone falls back to UTC).
 */
export function jqlDate(iso: string, timeZone: string | undefined): string {
  const at = new Date(iso);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', { timeZone: timeZone ?? 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  } catch {
    return jqlDate(iso, 'UTC');
  }
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${get('year')}/${get('month')}/${get('day')} ${get('hour')}:${get('minute')}`;
}

/** Lower-cased email where Jira shows it (profile visibility allowing), else `jira:<accountId>`. */
export function jiraPerson(...who: JiraUser[]): string | undefined {
  for (const u of who) if (u?.emailAddress) return u.emailAddress.toLowerCase();
  const first = who.find((u) => u?.accountId);
  return first ? `jira:${first.accountId}` : undefined;
}

export const projectGroup = (projectId: string) => `jira:project:${projectId}`;
const browse = (site: string, key: string) => `${site.replace(/\/+$/, '')}/browse/${encodeURIComponent(key)}`;

export const issueExternalId = (issueId: string) => `issue:${issueId}`;
/** Comment ids carry their issue's id, so the comments stored for one issue are found by the prefix `comment:<issue id>:`. */
export const commentExternalId = (issueId: string, commentId: string) => `comment:${issueId}:${commentId}`;
export const commentPrefix = (issueId: string) => `comment:${issueId}:`;
export const projectExternalId = (projectId: string) => `project:${projectId}`;

export function issueToDocument(issue: JiraIssue, site: string): SourceDocument {
  const f = issue.fields;
  const lines = [
    f.issuetype ? `Type: ${f.issuetype.name}` : '',
    f.status ? `Status: ${f.status.name}` : '',
    f.priority ? `Priority: ${f.priority.name}` : '',
    `Assignee: ${f.assignee?.displayName ?? (f.assignee ? f.assignee.accountId : 'Unassigned')}`,
    f.reporter?.displayName ? `Reporter: ${f.reporter.displayName}` : '',
    f.labels && f.labels.length > 0 ? `Labels: ${f.labels.join(', ')}` : '',
    f.resolution ? `Resolution: ${f.resolution.name}` : '',
    f.parent ? `Parent: ${f.parent.key}` : '',
  ].filter(Boolean);
  const description = adfToText(f.description);
  return {
    external_id: issueExternalId(issue.id),
    title: `${issue.key}: ${f.summary ?? ''}`.trim(),
    content: [description, lines.join('\n')].filter((s) => s.trim()).join('\n\n'),
    url: browse(site, issue.key),
    author: jiraPerson(f.reporter, f.creator),
    document_type: 'issue',
    created_at: jiraTime(f.created),
    updated_at: jiraTime(f.updated),
    metadata: {
      jira_id: issue.id,
      key: issue.key,
      project_id: f.project.id,
      project_key: f.project.key,
      issue_type: f.issuetype?.name ?? null,
      status: f.status?.name ?? null,
      status_category: f.status?.statusCategory?.key ?? null,
      priority: f.priority?.name ?? null,
      assignee: f.assignee ? (f.assignee.displayName ?? f.assignee.accountId) : null,
      assignee_account_id: f.assignee?.accountId ?? null,
      reporter: f.reporter ? (f.reporter.displayName ?? f.reporter.accountId) : null,
      labels: f.labels ?? [],
      resolution: f.resolution?.name ?? null,
      parent: f.parent?.key ?? null,
      // Not enforced by the project ACL below: an issue security level narrows who sees the issue inside its project.
      ...(f.security ? { security_level: f.security.name ?? f.security.id, security_level_id: f.security.id } : {}),
    },
    acl: { groups: [projectGroup(f.project.id)] },
  };
}

/** A comment restricted to a group or project role is readable by that group/role only; otherwise by the project. */
export function commentAcl(c: JiraComment, projectId: string): SourceAcl {
  const v = c.visibility;
  if (v?.type === 'group') return { groups: [`jira:group:${v.identifier ?? v.value ?? ''}`] };
  if (v?.type === 'role') return { groups: [`jira:project:${projectId}:role:${v.value ?? v.identifier ?? ''}`] };
  return { groups: [projectGroup(projectId)] };
}

export function commentToDocument(c: JiraComment, issue: Pick<JiraIssue, 'id' | 'key'> & { fields: Pick<JiraIssue['fields'], 'summary' | 'project'> }, site: string): SourceDocument {
  return {
    external_id: commentExternalId(issue.id, c.id),
    title: `Comment on ${issue.key}: ${issue.fields.summary ?? ''}`.trim(),
    content: adfToText(c.body),
    url: `${browse(site, issue.key)}?focusedCommentId=${encodeURIComponent(c.id)}`,
    author: jiraPerson(c.author),
    document_type: 'comment',
    created_at: jiraTime(c.created),
    updated_at: jiraTime(c.updated ?? c.created),
    metadata: {
      jira_id: c.id,
      issue_id: issue.id,
      issue_key: issue.key,
      project_id: issue.fields.project.id,
      project_key: issue.fields.project.key,
      ...(c.visibility ? { visibility: { type: c.visibility.type, value: c.visibility.value ?? c.visibility.identifier ?? null } } : {}),
    },
    acl: commentAcl(c, issue.fields.project.id),
  };
}

export function projectToDocument(p: JiraProject, site: string): SourceDocument {
  const lines = [p.projectTypeKey ? `Type: ${p.projectTypeKey}` : '', p.lead?.displayName ? `Lead: ${p.lead.displayName}` : ''].filter(Boolean);
  return {
    external_id: projectExternalId(p.id),
    title: `${p.key}: ${p.name}`,
    content: [p.description ?? '', lines.join('\n')].filter((s) => s.trim()).join('\n\n'),
    url: browse(site, p.key),
    author: p.lead ? jiraPerson(p.lead) : undefined,
    document_type: 'project',
    metadata: { jira_id: p.id, key: p.key, project_type: p.projectTypeKey ?? null, lead: p.lead?.displayName ?? null },
    acl: { groups: [projectGroup(p.id)] },
  };
}

/** The later of two ISO timestamps (either may be null). */
export function laterIso(a: string | null, b: string | null | undefined): string | null {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
