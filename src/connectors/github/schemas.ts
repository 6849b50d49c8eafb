import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const githubCredentials = z
  .object({ access_token: z.string().min(1).optional().describe('personal access token with scopes repo, read:org, read:discussion; omit to connect with OAuth') })
  .strict();
export type GitHubCredentials = z.infer<typeof githubCredentials>;

export const githubSettings = z
  .object({
    sync_private_repos: z.boolean().default(true),
    sync_archived_repos: z.boolean().default(false),
    include_forks: z.boolean().default(false),
    max_file_size_mb: z.number().int().min(1).max(100).default(10),
    file_extensions: z
      .array(z.string().regex(/^\.[A-Za-z0-9_+-]+$/, 'an extension with its leading dot, e.g. ".md"'))
      .default(['.md', '.mdx', '.txt', '.rst']),
    include_wiki: z.boolean().default(true).describe("sync each repository's wiki pages (read from its .wiki.git repository)"),
    repositories: z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/)).optional().describe('only these owner/name repositories (default: every accessible one)'),
    ...commonSettings,
  })
  .strict();
export type GitHubSettings = z.infer<typeof githubSettings>;
