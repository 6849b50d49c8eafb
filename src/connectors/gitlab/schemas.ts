import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

export const gitlabCredentials = z
  .object({
    private_token: z
      .string()
      .min(1)
      .optional()
      .describe('a personal, project or group access token with scopes read_api and read_repository (sent as PRIVATE-TOKEN); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('an OAuth 2.0 access token (sent as Authorization: Bearer); set by the OAuth flow'),
  })
  .strict();
export type GitLabCredentials = z.infer<typeof gitlabCredentials>;

/** A project path (`group/sub/project`) or group path (`group/sub`), or a numeric id. */
const namespacePath = z.string().regex(/^(\d+|[\w.-]+(\/[\w.-]+)*)$/, 'a path like "group/project" or a numeric id');

export const gitlabSettings = z
  .object({
    base_url: siteUrl('the GitLab instance, e.g. https://gitlab.example.com for self-managed (default https://gitlab.com)').default('https://gitlab.com'),
    projects: z.array(namespacePath).optional().describe('only these projects (full paths like "group/project", or ids)'),
    groups: z.array(namespacePath).optional().describe("these groups' projects, subgroups included (paths or ids); with `projects`, both are synced"),
    include_archived: z.boolean().default(false).describe('also sync archived projects'),
    include_issues: z.boolean().default(true).describe('sync issues'),
    include_merge_requests: z.boolean().default(true).describe('sync merge requests'),
    include_notes: z.boolean().default(false).describe("append issues' and merge requests' comments (non-system notes) to their text: one more request per changed issue or merge request"),
    include_wiki: z.boolean().default(true).describe("sync each project's wiki pages"),
    include_files: z.boolean().default(true).describe("sync repository files of the default branch (filtered by file_extensions and max_file_size_mb)"),
    file_extensions: z
      .array(z.string().regex(/^\.[A-Za-z0-9_+-]+$/, 'an extension with its leading dot, e.g. ".md"'))
      .default(['.md', '.mdx', '.txt', '.rst'])
      .describe('repository files with these extensions are synced (case-insensitive)'),
    max_file_size_mb: z.number().int().min(1).max(100).default(10).describe('larger repository files are skipped'),
    ...commonSettings,
  })
  .strict();
export type GitLabSettings = z.infer<typeof gitlabSettings>;
