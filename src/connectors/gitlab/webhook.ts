import { constantTimeEqual, type SourceContext, type SourceDocument, type WebhookCapability, type WebhookVerification } from '../kit/index.ts';
import { glGetOptional, seg } from './client.ts';
import { fetchFiles } from './files.ts';
import {
  fileExternalId,
  type GlIssuable,
  type GlNote,
  type GlProject,
  type GlWikiPage,
  issueExternalId,
  issueToDocument,
  mergeRequestExternalId,
  mergeRequestToDocument,
  projectRef,
  wantedPath,
  wikiContentSha,
  wikiExternalId,
  wikiPageToDocument,
} from './map.ts';
import type { GitLabCredentials, GitLabSettings } from './schemas.ts';
import { notesOf } from './sync.ts';

type Ctx = SourceContext<GitLabCredentials, GitLabSettings>;

/** The `X-Gitlab-Event` values applied; every other event is acknowledged and ignored. */
export const GITLAB_EVENTS = ['Issue Hook', 'Confidential Issue Hook', 'Merge Request Hook', 'Push Hook', 'Wiki Page Hook'] as const;

/**
 * GitLab sends the secret token configured on the webhook back verbatim in `X-Gitlab-Token` (no signature over the
 * body), so the check is a constant-time comparison with the secret we handed out.
 */
export function verifyGitLabToken(token: string | undefined, secret: string): WebhookVerification {
  if (!token) return { ok: false, reason: 'missing X-Gitlab-Token header' };
  if (!constantTimeEqual(secret, token)) return { ok: false, reason: 'X-Gitlab-Token does not match the webhook secret' };
  return { ok: true };
}

interface HookProject {
  readonly id: number;
  readonly path_with_namespace: string;
}
interface HookPayload {
  readonly object_kind?: string;
  readonly project?: HookProject;
  readonly object_attributes?: { readonly iid?: number; readonly action?: string; readonly slug?: string };
  readonly ref?: string;
  readonly before?: string;
  readonly after?: string;
  readonly total_commits_count?: number;
  readonly commits?: readonly { readonly added?: string[]; readonly modified?: string[]; readonly removed?: string[] }[];
}

type Listed = GlProject & { issues_enabled?: boolean; merge_requests_enabled?: boolean; wiki_enabled?: boolean };

/** Whether the sync would read this project: `projects` (path or id), `groups` (the project is under the group), archived. */
async function inScope(ctx: Ctx, p: Listed): Promise<boolean> {
  const { projects, groups } = ctx.settings;
  const named = (projects ?? []).some((x) => x === p.path_with_namespace || x === String(p.id));
  if (named) return true;
  if (p.archived && !ctx.settings.include_archived) return false;
  if (!projects && !groups) return true;
  for (const g of groups ?? []) {
    // A group given by id: its path, once per delivery.
    const path = /^\d+$/.test(g) ? (await glGetOptional<{ full_path: string }>(ctx, `groups/${seg(g)}`))?.full_path : g;
    if (path && p.path_with_namespace.toLowerCase().startsWith(`${path.toLowerCase()}/`)) return true;
  }
  return false;
}

async function notes(ctx: Ctx, projectId: number, kind: 'issues' | 'merge_requests', iid: number): Promise<GlNote[] | undefined> {
  if (!ctx.settings.include_notes) return undefined;
  return notesOf(ctx, { id: projectId }, kind, iid);
}

interface Compare {
  readonly diffs?: readonly { readonly old_path: string; readonly new_path: string; readonly deleted_file?: boolean; readonly renamed_file?: boolean }[];
}

/** Paths a push changed and removed: from the payload's commits, or (GitLab lists at most 20 commits) from the compare API. */
async function pushedPaths(ctx: Ctx, projectId: number, p: HookPayload): Promise<{ changed: Set<string>; removed: Set<string> }> {
  const changed = new Set<string>();
  const removed = new Set<string>();
  const commits = p.commits ?? [];
  const zero = /^0+$/;
  if ((p.total_commits_count ?? commits.length) > commits.length && p.before && p.after && !zero.test(p.before) && !zero.test(p.after)) {
    const cmp = await glGetOptional<Compare>(ctx, `projects/${projectId}/repository/compare`, { from: p.before, to: p.after, straight: true });
    for (const d of cmp?.diffs ?? []) {
      if (d.deleted_file) removed.add(d.old_path);
      else {
        changed.add(d.new_path);
        if (d.renamed_file) removed.add(d.old_path);
      }
    }
    return { changed, removed };
  }
  for (const c of commits) {
    for (const f of [...(c.added ?? []), ...(c.modified ?? [])]) {
      changed.add(f);
      removed.delete(f);
    }
    for (const f of c.removed ?? []) {
      removed.add(f);
      changed.delete(f);
    }
  }
  return { changed, removed };
}

type Changes = { documents: SourceDocument[]; deleted: string[] };
const none = (): Changes => ({ documents: [], deleted: [] });

/**
 * Applies one verified delivery by reading GitLab's current state (a deferred delivery may be stale): the issue,
 * merge request or wiki page it names (gone → deleted), or the files a push to the default branch changed.
 */
async function apply(ctx: Ctx, event: string, p: HookPayload): Promise<Changes> {
  if (!p.project) return none();
  const project = await glGetOptional<Listed>(ctx, `projects/${p.project.id}`);
  if (!project || !(await inScope(ctx, project))) return none();
  const pr = projectRef(project);
  const iid = p.object_attributes?.iid;
  if ((event === 'Issue Hook' || event === 'Confidential Issue Hook') && typeof iid === 'number') {
    if (!ctx.settings.include_issues) return none();
    const issue = await glGetOptional<GlIssuable>(ctx, `projects/${project.id}/issues/${iid}`);
    if (!issue) return { documents: [], deleted: [issueExternalId(pr.path, iid)] };
    return { documents: [issueToDocument(pr, issue, await notes(ctx, project.id, 'issues', iid))], deleted: [] };
  }
  if (event === 'Merge Request Hook' && typeof iid === 'number') {
    if (!ctx.settings.include_merge_requests) return none();
    const mr = await glGetOptional<GlIssuable>(ctx, `projects/${project.id}/merge_requests/${iid}`);
    if (!mr) return { documents: [], deleted: [mergeRequestExternalId(pr.path, iid)] };
    return { documents: [mergeRequestToDocument(pr, mr, await notes(ctx, project.id, 'merge_requests', iid))], deleted: [] };
  }
  if (event === 'Wiki Page Hook') {
    const slug = p.object_attributes?.slug;
    if (!ctx.settings.include_wiki || !slug) return none();
    const gone = { documents: [], deleted: [wikiExternalId(pr.path, slug)] };
    if (p.object_attributes?.action === 'delete') return gone;
    const page = await glGetOptional<GlWikiPage>(ctx, `projects/${project.id}/wikis/${seg(slug)}`);
    return page ? { documents: [wikiPageToDocument(pr, page, wikiContentSha(page))], deleted: [] } : gone;
  }
  if (event === 'Push Hook') {
    const branch = project.default_branch;
    if (!ctx.settings.include_files || !branch || p.ref !== `refs/heads/${branch}`) return none();
    const { changed, removed } = await pushedPaths(ctx, project.id, p);
    const wanted = [...changed].filter((f) => wantedPath(f, ctx.settings.file_extensions)).map((path) => ({ path, id: '' }));
    const r = await fetchFiles(ctx, pr, branch, wanted);
    const deleted = [...removed, ...r.missing].filter((f) => wantedPath(f, ctx.settings.file_extensions)).map((f) => fileExternalId(pr.path, f));
    return { documents: r.documents, deleted };
  }
  return none();
}

/** GitLab webhooks: `X-Gitlab-Token` = the secret from `POST /v1/connectors/{id}/webhook`; events named by `X-Gitlab-Event`. */
export const gitlabWebhook: WebhookCapability<GitLabCredentials, GitLabSettings> = {
  events: GITLAB_EVENTS,
  // GitLab waits 10 s for an answer (and disables hooks that keep failing): answer by 8 s, finish in the background.
  ackWithinMs: 8000,
  eventName: ({ headers, payload }) => headers['x-gitlab-event'] ?? (payload as HookPayload | null)?.object_kind ?? 'unknown',
  async verify({ headers, secret }) {
    return verifyGitLabToken(headers['x-gitlab-token'], secret);
  },
  async changes(ctx, { headers, payload }) {
    const event = headers['x-gitlab-event'] ?? '';
    const p = (payload ?? {}) as HookPayload;
    const action = p.object_attributes?.action;
    const named = action ? `${event}.${action}` : event;
    if (!(GITLAB_EVENTS as readonly string[]).includes(event)) return { ...none(), event: named };
    return { ...(await apply(ctx, event, p)), event: named };
  },
};
