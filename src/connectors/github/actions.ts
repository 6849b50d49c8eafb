import { z } from 'zod';
import type { ActionDefinition } from '../kit/index.ts';
import { githubClient, mapGitHubError } from './client.ts';
import type { GitHubCredentials, GitHubSettings } from './schemas.ts';

const repoName = z.string().regex(/^[\w.-]+\/[\w.-]+$/).describe('owner/name');

function split(repo: string): { owner: string; repo: string } {
  const [owner = '', name = ''] = repo.split('/');
  return { owner, repo: name };
}

export const githubActions: ActionDefinition<GitHubCredentials, GitHubSettings>[] = [
  {
    name: 'create_issue',
    description: 'Create an issue in a GitHub repository',
    parameters: z.object({ repository: repoName, title: z.string().min(1).max(256), body: z.string().max(65_536).optional() }),
    async run(ctx, params) {
      const p = z.object({ repository: repoName, title: z.string(), body: z.string().optional() }).parse(params);
      try {
        const r = await githubClient(ctx).request('POST /repos/{owner}/{repo}/issues', { ...split(p.repository), title: p.title, body: p.body });
        const d = r.data as unknown as { number: number; html_url: string };
        return { number: d.number, url: d.html_url };
      } catch (err) {
        throw mapGitHubError(err);
      }
    },
  },
  {
    name: 'comment_on_issue',
    description: 'Add a comment to a GitHub issue or pull request',
    parameters: z.object({ repository: repoName, issue_number: z.number().int().positive(), body: z.string().min(1).max(65_536) }),
    async run(ctx, params) {
      const p = z.object({ repository: repoName, issue_number: z.number().int(), body: z.string() }).parse(params);
      try {
        const r = await githubClient(ctx).request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...split(p.repository), issue_number: p.issue_number, body: p.body });
        const d = r.data as unknown as { id: number; html_url: string };
        return { comment_id: d.id, url: d.html_url };
      } catch (err) {
        throw mapGitHubError(err);
      }
    },
  },
];
