import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

/** The Bitbucket Cloud REST 2.0 shapes the connector reads (only the fields it uses), and their pure mapping to documents. */
const account = z
  .object({
    display_name: z.string().nullable().optional(),
    account_id: z.string().nullable().optional(),
    uuid: z.string().nullable().optional(),
    nickname: z.string().nullable().optional(),
  })
  .nullable()
  .optional();
export type BitbucketAccount = z.infer<typeof account>;

const html = z.object({ html: z.object({ href: z.string() }).nullable().optional() }).passthrough().nullable().optional();
const rendered = z.object({ raw: z.string().nullable().optional(), markup: z.string().nullable().optional() }).nullable().optional();

export const repository = z.object({
  uuid: z.string(),
  full_name: z.string(),
  slug: z.string().optional(),
  name: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  is_private: z.boolean().default(true),
  has_issues: z.boolean().default(false),
  language: z.string().nullable().optional(),
  mainbranch: z.object({ name: z.string() }).nullable().optional(),
  project: z.object({ key: z.string().optional(), name: z.string().optional() }).nullable().optional(),
  links: html,
  created_on: z.string().nullable().optional(),
  updated_on: z.string().nullable().optional(),
});
export type BitbucketRepository = z.infer<typeof repository>;

export const comment = z.object({
  id: z.number(),
  content: rendered,
  user: account,
  created_on: z.string(),
  updated_on: z.string().nullable().optional(),
  deleted: z.boolean().optional(),
  inline: z.object({ path: z.string(), to: z.number().nullable().optional(), from: z.number().nullable().optional() }).nullable().optional(),
  parent: z.object({ id: z.number() }).nullable().optional(),
});
export type BitbucketComment = z.infer<typeof comment>;

export const pullRequest = z.object({
  id: z.number(),
  title: z.string(),
  description: z.string().nullable().optional(),
  state: z.string(),
  author: account,
  source: z.object({ branch: z.object({ name: z.string() }).nullable().optional() }).nullable().optional(),
  destination: z.object({ branch: z.object({ name: z.string() }).nullable().optional() }).nullable().optional(),
  created_on: z.string(),
  updated_on: z.string(),
  comment_count: z.number().optional(),
  links: html,
});
export type BitbucketPullRequest = z.infer<typeof pullRequest>;

export const issue = z.object({
  id: z.number(),
  title: z.string(),
  content: rendered,
  state: z.string().nullable().optional(),
  kind: z.string().nullable().optional(),
  priority: z.string().nullable().optional(),
  reporter: account,
  assignee: account,
  created_on: z.string(),
  updated_on: z.string(),
  links: html,
});
export type BitbucketIssue = z.infer<typeof issue>;

/** A repository as the sync carries it between pages (what its documents need). */
export interface RepoRef {
  readonly uuid: string;
  readonly fullName: string;
  readonly isPrivate: boolean;
  readonly hasIssues: boolean;
  readonly mainBranch: string | null;
  readonly htmlUrl: string;
  readonly updatedOn: string | null;
}

/** Bitbucket wraps UUIDs in braces (`{c0ffee…}`); ids and groups use the bare UUID. */
export const bareUuid = (uuid: string) => uuid.replace(/^\{|\}$/g, '');

export function repoRef(r: BitbucketRepository): RepoRef {
  return {
    uuid: bareUuid(r.uuid),
    fullName: r.full_name,
    isPrivate: r.is_private,
    hasIssues: r.has_issues,
    mainBranch: r.mainbranch?.name ?? null,
    htmlUrl: r.links?.html?.href ?? `https://bitbucket.org/${r.full_name}`,
    updatedOn: r.updated_on ?? null,
  };
}

export const repositoryExternalId = (repoUuid: string) => `repository:${repoUuid}`;
export const readmeExternalId = (repoUuid: string) => `readme:${repoUuid}`;
export const pullRequestExternalId = (repoUuid: string, id: number) => `pr:${repoUuid}:${id}`;
export const issueExternalId = (repoUuid: string, id: number) => `issue:${repoUuid}:${id}`;

/** A public repository is readable by anyone; a private one by those with access to it. */
export function repoAcl(r: Pick<RepoRef, 'isPrivate' | 'uuid'>): SourceAcl {
  return r.isPrivate ? { groups: [`bitbucket:repo:${r.uuid}`] } : { public: true };
}

/** Bitbucket shows no emails: people are `bitbucket:<account id>` (a deleted user or an app: its UUID). */
export function bitbucketPerson(a: BitbucketAccount): string | undefined {
  const id = a?.account_id ?? (a?.uuid ? bareUuid(a.uuid) : null);
  return id ? `bitbucket:${id}` : undefined;
}

const personName = (a: BitbucketAccount) => a?.display_name ?? a?.nickname ?? 'Former user';

/** Bitbucket's `2026-01-05T09:00:00.123456+00:00` (microseconds) as ISO 8601 UTC; unparseable values pass through. */
export function bitbucketTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const d = new Date(value.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** Comments as text blocks, oldest first, replies and inline comments marked; deleted comments left out. */
export function commentsText(comments: readonly BitbucketComment[]): string {
  return [...comments]
    .filter((c) => !c.deleted && (c.content?.raw ?? '').trim())
    .sort((a, b) => Date.parse(a.created_on) - Date.parse(b.created_on) || a.id - b.id)
    .map((c) => {
      const where = c.inline ? ` on ${c.inline.path}${c.inline.to ? `:${c.inline.to}` : ''}` : '';
      const reply = c.parent ? ' (reply)' : '';
      return `${personName(c.user)}${reply}${where} (${(bitbucketTime(c.created_on) ?? c.created_on).slice(0, 16).replace('T', ' ')} UTC):\n${(c.content?.raw ?? '').trim()}`;
    })
    .join('\n\n');
}

export function repositoryToDocument(r: BitbucketRepository): SourceDocument {
  const ref = repoRef(r);
  const lines = [r.project?.name ? `Project: ${r.project.name}` : '', r.language ? `Language: ${r.language}` : '', ref.mainBranch ? `Main branch: ${ref.mainBranch}` : '', `Visibility: ${r.is_private ? 'private' : 'public'}`].filter(Boolean);
  return {
    external_id: repositoryExternalId(ref.uuid),
    title: r.full_name,
    content: [r.description?.trim() ?? '', lines.join('\n')].filter(Boolean).join('\n\n'),
    url: ref.htmlUrl,
    document_type: 'repository',
    created_at: bitbucketTime(r.created_on),
    updated_at: bitbucketTime(r.updated_on),
    metadata: { repository: r.full_name, repository_uuid: ref.uuid, project_key: r.project?.key ?? null, language: r.language ?? null, is_private: r.is_private, has_issues: r.has_issues, main_branch: ref.mainBranch },
    acl: repoAcl(ref),
  };
}

export function readmeToDocument(repo: RepoRef, text: string, path = 'README.md'): SourceDocument {
  const branch = repo.mainBranch ?? 'HEAD';
  return {
    external_id: readmeExternalId(repo.uuid),
    title: `${repo.fullName}: ${path}`,
    content: text.trim(),
    url: `${repo.htmlUrl.replace(/\/+$/, '')}/src/${encodeURIComponent(branch)}/${path}`,
    document_type: 'readme',
    updated_at: bitbucketTime(repo.updatedOn),
    metadata: { repository: repo.fullName, repository_uuid: repo.uuid, branch, path },
    acl: repoAcl(repo),
  };
}

export function pullRequestToDocument(repo: RepoRef, pr: BitbucketPullRequest, comments: readonly BitbucketComment[]): SourceDocument {
  const branches = pr.source?.branch?.name && pr.destination?.branch?.name ? `Branches: ${pr.source.branch.name} → ${pr.destination.branch.name}` : '';
  const head = [`State: ${pr.state}`, branches, `Author: ${personName(pr.author)}`].filter(Boolean).join('\n');
  const discussion = commentsText(comments);
  return {
    external_id: pullRequestExternalId(repo.uuid, pr.id),
    title: `PR #${pr.id}: ${pr.title}`,
    content: [pr.description?.trim() ?? '', head, discussion ? `Comments:\n\n${discussion}` : ''].filter(Boolean).join('\n\n'),
    url: pr.links?.html?.href ?? `${repo.htmlUrl.replace(/\/+$/, '')}/pull-requests/${pr.id}`,
    author: bitbucketPerson(pr.author),
    document_type: 'pull_request',
    created_at: bitbucketTime(pr.created_on),
    updated_at: bitbucketTime(pr.updated_on),
    metadata: {
      repository: repo.fullName,
      repository_uuid: repo.uuid,
      number: pr.id,
      state: pr.state,
      source_branch: pr.source?.branch?.name ?? null,
      destination_branch: pr.destination?.branch?.name ?? null,
      author_name: pr.author?.display_name ?? null,
      comments: comments.filter((c) => !c.deleted).length,
    },
    acl: repoAcl(repo),
  };
}

export function issueToDocument(repo: RepoRef, i: BitbucketIssue, comments: readonly BitbucketComment[]): SourceDocument {
  const head = [i.kind ? `Kind: ${i.kind}` : '', i.state ? `State: ${i.state}` : '', i.priority ? `Priority: ${i.priority}` : '', `Assignee: ${i.assignee ? personName(i.assignee) : 'Unassigned'}`, `Reporter: ${personName(i.reporter)}`].filter(Boolean).join('\n');
  const discussion = commentsText(comments);
  return {
    external_id: issueExternalId(repo.uuid, i.id),
    title: `Issue #${i.id}: ${i.title}`,
    content: [i.content?.raw?.trim() ?? '', head, discussion ? `Comments:\n\n${discussion}` : ''].filter(Boolean).join('\n\n'),
    url: i.links?.html?.href ?? `${repo.htmlUrl.replace(/\/+$/, '')}/issues/${i.id}`,
    author: bitbucketPerson(i.reporter),
    document_type: 'issue',
    created_at: bitbucketTime(i.created_on),
    updated_at: bitbucketTime(i.updated_on),
    metadata: { repository: repo.fullName, repository_uuid: repo.uuid, number: i.id, state: i.state ?? null, kind: i.kind ?? null, priority: i.priority ?? null, assignee: i.assignee?.display_name ?? null, comments: comments.filter((c) => !c.deleted).length },
    acl: repoAcl(repo),
  };
}
