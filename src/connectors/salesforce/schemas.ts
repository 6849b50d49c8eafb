import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/**
 * OAuth 2.0 (web server flow): the OAuth result arrives as `access_token` and the token answer's `instance_url` (kept
 * through `oauth.tokenFields`). Or a session / access token pasted with its org's instance URL. Empty credentials are
 * accepted so a connector can be created before its OAuth redirect.
 */
export const salesforceCredentials = z
  .object({
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token (set by the OAuth flow) or a session id, with instance_url'),
    instance_url: siteUrl('the org\'s instance URL, e.g. https://acme.my.salesforce.com (the OAuth token answer\'s instance_url)').optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.instance_url && !c.access_token) ctx.addIssue({ code: 'custom', path: ['access_token'], message: 'instance_url without access_token: add the token or connect with OAuth' });
  });
export type SalesforceCredentials = z.infer<typeof salesforceCredentials>;

export const SALESFORCE_OBJECTS = ['account', 'contact', 'opportunity', 'case', 'knowledge_article'] as const;
export type SalesforceObject = (typeof SALESFORCE_OBJECTS)[number];

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

export const salesforceSettings = z
  .object({
    objects: z
      .array(z.enum(SALESFORCE_OBJECTS))
      .min(1)
      .default([...SALESFORCE_OBJECTS])
      .describe('what to sync: account, contact, opportunity, case (with its CaseComments), knowledge_article (default: all)'),
    api_version: z
      .string()
      .regex(/^\d{2,3}\.0$/, 'a REST API version such as "62.0"')
      .default('62.0')
      .describe('REST API version used in /services/data/vXX.X/'),
    include_case_comments: z.boolean().default(true).describe('render each case\'s CaseComments into its document'),
    knowledge_object: z
      .string()
      .regex(FIELD_NAME, 'an object API name such as KnowledgeArticleVersion or Knowledge__kav')
      .default('KnowledgeArticleVersion')
      .describe('the article version object to read (Lightning Knowledge: Knowledge__kav, whose custom fields hold the body)'),
    knowledge_body_fields: z
      .array(z.string().regex(FIELD_NAME, 'a field API name such as Answer__c'))
      .max(20)
      .default([])
      .describe('rich-text / text fields of knowledge_object rendered as the article body (HTML to text), e.g. ["Answer__c"]'),
    knowledge_language: z
      .string()
      .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'a Salesforce language code such as en_US')
      .optional()
      .describe('only articles in this language (multilingual knowledge bases); default every language'),
    ...commonSettings,
  })
  .strict();
export type SalesforceSettings = z.infer<typeof salesforceSettings>;
