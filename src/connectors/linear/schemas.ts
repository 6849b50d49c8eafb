import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const linearCredentials = z
  .object({
    api_key: z.string().min(1).optional().describe('Linear personal API key (lin_api_…) from Settings → Account → Security & access; read access, write for actions; or connect with OAuth'),
    access_token: z.string().min(1).optional().describe('an OAuth 2.0 access token (set by the OAuth callback)'),
  })
  .strict();
export type LinearCredentials = z.infer<typeof linearCredentials>;

export const linearSettings = z
  .object({
    teams: z.array(z.string().min(1)).optional().describe('team keys (e.g. "ENG") or ids to sync (default: every team the key can read)'),
    include_archived: z.boolean().default(false).describe('also index archived issues, projects, cycles and documents'),
    include_comments: z.boolean().default(true).describe('index issue comments'),
    sync_attachments: z.boolean().default(false).describe('index issue attachments (their title, subtitle, URL and source metadata)'),
    ...commonSettings,
  })
  .strict();
export type LinearSettings = z.infer<typeof linearSettings>;
