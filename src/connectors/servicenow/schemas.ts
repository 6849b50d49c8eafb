import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/**
 * Basic auth with an integration user (`username` + `password`), or OAuth 2.0 against the instance's own
 * `/oauth_auth.do` / `/oauth_token.do`, whose result arrives as `access_token`. Empty credentials are accepted so a
 * connector can be created before its OAuth redirect.
 */
export const servicenowCredentials = z
  .object({
    username: z.string().min(1).optional().describe('user name of a ServiceNow integration user with read access to kb_knowledge, incident and sys_journal_field'),
    password: z.string().min(1).optional().describe('that user\'s password (with username); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.username && !c.password && !c.access_token) ctx.addIssue({ code: 'custom', path: ['password'], message: 'username without password: add the password or connect with OAuth' });
    if (c.password && !c.username) ctx.addIssue({ code: 'custom', path: ['username'], message: 'a password needs the user name it belongs to' });
  });
export type ServicenowCredentials = z.infer<typeof servicenowCredentials>;

/** A ServiceNow sys_id: 32 hex characters. */
const SYS_ID = /^[0-9a-f]{32}$/;

export const servicenowSettings = z
  .object({
    instance_url: siteUrl('your ServiceNow instance, e.g. https://acme.service-now.com (API calls and links go there)'),
    include_knowledge: z.boolean().default(true).describe('sync published knowledge articles (kb_knowledge, workflow_state=published)'),
    knowledge_bases: z
      .array(z.string().trim().regex(SYS_ID, 'a knowledge base sys_id (32 hex characters)'))
      .optional()
      .describe('only articles of these knowledge bases (sys_ids); default: every knowledge base the user can read'),
    include_incidents: z.boolean().default(true).describe('sync incidents (incident table)'),
    include_journal: z.boolean().default(true).describe('add incidents\' additional comments and work notes (sys_journal_field); work notes are marked internal'),
    ...commonSettings,
  })
  .strict();
export type ServicenowSettings = z.infer<typeof servicenowSettings>;
