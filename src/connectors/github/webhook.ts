import { verify } from '@octokit/webhooks-methods';
import type { SourceContext, SourceDocument, WebhookCapability } from '../kit/index.ts';
import { call, githubClient } from './client.ts';
import { lastCommits } from './files.ts';
import {
  discussionToDocument,
  fileExternalId,
  fileToDocument,
  type GhDiscussion,
  type GhIssue,
  issueExternalId,
  issueToDocument,
  repoWanted,
  wantedFile,
  wikiPageToDocument,
} from './map.ts';
import type { GitHubCredentials, GitHubSettings } from './schemas.ts';
import { readWiki, wikiPageName } from './wiki.ts';

type Ctx = SourceContext<GitHubCredentials, GitHubSettings>;

interface PushPayload {
  ref: string;
  repository: { full_name: string; private: boolean; default_branch?: string; html_url?: string };
  commits?: { added?: string[]; modified?: string[]; removed?: string[] }[];
}

async function pushChanges(ctx: Ctx, p: PushPayload): Promise<{ documents: SourceDocument[]; deleted: string[] }> {
  const repo = p.repository.full_name;
  const branch = p.ref.replace(/^refs\/heads\//, '');
  if (p.repository.default_branch && branch !== p.repository.default_branch) return { documents: [], deleted: [] };
  const changed = new Set<string>();
  const removed = new Set<string>();
  for (const c of p.commits ?? []) {
    for (const f of [...(c.added ?? []), ...(c.modified ?? [])]) {
      changed.add(f);
      removed.delete(f);
    }
    for (const f of c.removed ?? []) {
      removed.add(f);
      changed.delete(f);
    }
  }
  const [owner = '', name = ''] = repo.split('/');
  const gh = githubClient(ctx);
  const maxBytes = ctx.settings.max_file_size_mb * 1024 * 1024;
  const fetched: { path: string; content: string; sha: string }[] = [];
  for (const path of changed) {
    if (!wantedFile(path, 0, ctx.settings.file_extensions, maxBytes)) continue;
    const r = await call(() => gh.request('GET /repos/{owner}/{repo}/contents/{path}', { owner, repo: name, path, ref: branch }));
    const f = r.data as unknown as { content?: string; encoding?: string; sha: string; size: number };
    if (f.size > maxBytes || f.content === undefined) continue;
    fetched.push({ path, sha: f.sha, content: f.encoding === 'base64' ? Buffer.from(f.content, 'base64').toString('utf8') : f.content });
  }
  // Dated like the sync's files: the last commit of each, read from GitHub's current state (a deferred delivery is stale).
  const commits = await lastCommits(ctx, gh, repo, branch, fetched.map((f) => f.path));
  const webBase = p.repository.html_url ? p.repository.html_url.replace(new RegExp(`/${repo}$`), '') : 'https://github.com';
  const documents = fetched.map((f) => fileToDocument({ repo, branch, ...f, isPrivate: p.repository.private, webBase, commit: commits.get(f.path) }));
  return { documents, deleted: [...removed].map((path) => fileExternalId(repo, path)) };
}

interface GollumPayload {
  pages?: { page_name: string; action: string }[];
  repository: { full_name: string; private: boolean; html_url?: string; fork?: boolean; archived?: boolean };
}

/**
 * `gollum` (wiki pages created or edited): the payload has no content, so the wiki is read over git and the
 * pages it names are upserted. Deleted or renamed-away pages go with the next sync (no event for them).
 */
async function gollumChanges(ctx: Ctx, p: GollumPayload): Promise<{ documents: SourceDocument[]; deleted: string[] }> {
  const repo = p.repository;
  if (!ctx.settings.include_wiki || !repo.html_url || !repoWanted(ctx.settings, repo)) return { documents: [], deleted: [] };
  const names = new Set((p.pages ?? []).map((x) => x.page_name));
  if (names.size === 0) return { documents: [], deleted: [] };
  const read = await readWiki(ctx, repo.full_name, repo.html_url, null, ctx.settings.max_file_size_mb * 1024 * 1024);
  if (read.status !== 'read') return { documents: [], deleted: [] };
  const documents: SourceDocument[] = [];
  for (const page of read.pages) {
    const name = wikiPageName(page.path) ?? page.path;
    if (names.has(name.replace(/ /g, '-')) || names.has(name)) documents.push(wikiPageToDocument(repo.full_name, repo.html_url, { ...page, name }, repo.private));
  }
  return { documents, deleted: [] };
}

/** GitHub webhooks: `X-Hub-Signature-256` = HMAC-SHA256 of the raw body with the secret we handed out. */
export const githubWebhook: WebhookCapability<GitHubCredentials, GitHubSettings> = {
  events: ['push', 'issues', 'pull_request', 'discussion', 'gollum'],
  // GitHub gives up on a delivery after 10 s; a wiki read may take longer, so answer by 8 s and finish in the background.
  ackWithinMs: 8000,
  eventName: ({ headers }) => headers['x-github-event'] ?? 'unknown',
  async verify({ headers, rawBody, secret }) {
    const signature = headers['x-hub-signature-256'];
    if (!signature) return { ok: false, reason: 'missing X-Hub-Signature-256 header' };
    const ok = await verify(secret, rawBody, signature).catch(() => false);
    return ok ? { ok: true } : { ok: false, reason: 'X-Hub-Signature-256 does not match the payload' };
  },
  async changes(ctx, { headers, payload }) {
    const event = headers['x-github-event'] ?? '';
    const p = payload as Record<string, unknown>;
    const repo = p.repository as { full_name: string; private: boolean; fork?: boolean; archived?: boolean } | undefined;
    if (!repo) return { documents: [], deleted: [], event };
    // An organization- or app-wide webhook delivers every repository's events: only those the sync would read
    // count (`repositories`, `sync_private_repos`, `sync_archived_repos`, `include_forks`).
    if (!repoWanted(ctx.settings, repo)) return { documents: [], deleted: [], event: `${event}.out_of_scope` };
    const action = typeof p.action === 'string' ? p.action : '';
    if (event === 'issues' || event === 'pull_request') {
      const raw = (event === 'issues' ? p.issue : p.pull_request) as GhIssue;
      const issue = event === 'pull_request' ? { ...raw, pull_request: {} } : raw;
      if (action === 'deleted') return { documents: [], deleted: [issueExternalId(repo.full_name, issue.number, event === 'pull_request')], event: `${event}.${action}` };
      return { documents: [issueToDocument(repo.full_name, issue, repo.private)], deleted: [], event: `${event}.${action}` };
    }
    if (event === 'discussion') {
      const d = p.discussion as { number: number; title: string; body: string | null; html_url: string; created_at: string; updated_at: string; user?: { login: string }; category?: { name: string } };
      const ext = `discussion:${repo.full_name}#${d.number}`;
      if (action === 'deleted') return { documents: [], deleted: [ext], event: `${event}.${action}` };
      const node: GhDiscussion = {
        number: d.number,
        title: d.title,
        body: d.body ?? '',
        url: d.html_url,
        createdAt: d.created_at,
        updatedAt: d.updated_at,
        author: d.user ? { login: d.user.login } : null,
        category: d.category ? { name: d.category.name } : null,
      };
      return { documents: [discussionToDocument(repo.full_name, node, repo.private)], deleted: [], event: `${event}.${action}` };
    }
    if (event === 'push') return { ...(await pushChanges(ctx, p as unknown as PushPayload)), event };
    if (event === 'gollum') return { ...(await gollumChanges(ctx, p as unknown as GollumPayload)), event };
    return { documents: [], deleted: [], event };
  },
};
