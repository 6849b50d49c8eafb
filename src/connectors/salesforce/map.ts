import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { SalesforceObject, SalesforceSettings } from './schemas.ts';

/**
 * Salesforce records (SOQL query rows: field values plus relationship objects such as `Owner: {Name, Email}`) and
 * their pure mapping to readable-text documents. One document per record; a case carries its CaseComments.
 */
export type SfRecord = Record<string, unknown>;

/** A field (or a `Relationship.Field` path) of a record as display text; null when empty. */
export function field(r: SfRecord, path: string): string | null {
  let v: unknown = r;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** Salesforce's `2026-01-05T09:00:00.000+0000` as ISO 8601 UTC; unparseable values pass through. */
export function sfTime(value: string): string {
  const d = new Date(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** A SOQL dateTime literal (no quotes, no milliseconds): `2026-01-05T09:00:00Z`. */
export const soqlDateTime = (iso: string): string => `${new Date(iso).toISOString().slice(0, 19)}Z`;

/** A SOQL string literal: quotes and backslashes escaped. */
export const soqlString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const OWNER = ['OwnerId', 'Owner.Name', 'Owner.Email'];
const DATES = ['CreatedDate', 'LastModifiedDate', 'SystemModstamp'];

interface ObjectSpec {
  /** The sObject queried (knowledge: settings.knowledge_object). */
  readonly sobject: string;
  readonly label: string;
  readonly fields: readonly string[];
  /** Display lines after the heading line: [label, field path]. */
  readonly lines: readonly (readonly [string, string])[];
  readonly heading: (r: SfRecord) => string;
}

export const SPECS: Record<Exclude<SalesforceObject, 'knowledge_article'>, ObjectSpec> = {
  account: {
    sobject: 'Account',
    label: 'Account',
    fields: ['Id', 'Name', 'Type', 'Industry', 'Website', 'Phone', 'BillingCity', 'BillingCountry', 'AnnualRevenue', 'NumberOfEmployees', 'Description', ...OWNER, ...DATES],
    lines: [
      ['Type', 'Type'],
      ['Industry', 'Industry'],
      ['Website', 'Website'],
      ['Phone', 'Phone'],
      ['City', 'BillingCity'],
      ['Country', 'BillingCountry'],
      ['Annual revenue', 'AnnualRevenue'],
      ['Employees', 'NumberOfEmployees'],
      ['Owner', 'Owner.Name'],
    ],
    heading: (r) => `Account: ${field(r, 'Name') ?? field(r, 'Id')}`,
  },
  contact: {
    sobject: 'Contact',
    label: 'Contact',
    fields: ['Id', 'Name', 'Title', 'Email', 'Phone', 'Department', 'AccountId', 'Account.Name', 'MailingCity', 'MailingCountry', 'Description', ...OWNER, ...DATES],
    lines: [
      ['Title', 'Title'],
      ['Account', 'Account.Name'],
      ['Department', 'Department'],
      ['Email', 'Email'],
      ['Phone', 'Phone'],
      ['City', 'MailingCity'],
      ['Country', 'MailingCountry'],
      ['Owner', 'Owner.Name'],
    ],
    heading: (r) => `Contact: ${field(r, 'Name') ?? field(r, 'Id')}`,
  },
  opportunity: {
    sobject: 'Opportunity',
    label: 'Opportunity',
    fields: ['Id', 'Name', 'StageName', 'Amount', 'CloseDate', 'Probability', 'Type', 'LeadSource', 'NextStep', 'AccountId', 'Account.Name', 'Description', ...OWNER, ...DATES],
    lines: [
      ['Account', 'Account.Name'],
      ['Stage', 'StageName'],
      ['Amount', 'Amount'],
      ['Close date', 'CloseDate'],
      ['Probability', 'Probability'],
      ['Type', 'Type'],
      ['Lead source', 'LeadSource'],
      ['Next step', 'NextStep'],
      ['Owner', 'Owner.Name'],
    ],
    heading: (r) => `Opportunity: ${field(r, 'Name') ?? field(r, 'Id')}`,
  },
  case: {
    sobject: 'Case',
    label: 'Case',
    fields: ['Id', 'CaseNumber', 'Subject', 'Status', 'Priority', 'Origin', 'Type', 'Reason', 'IsClosed', 'AccountId', 'Account.Name', 'ContactId', 'Contact.Name', 'Description', ...OWNER, ...DATES],
    lines: [
      ['Status', 'Status'],
      ['Priority', 'Priority'],
      ['Origin', 'Origin'],
      ['Type', 'Type'],
      ['Reason', 'Reason'],
      ['Account', 'Account.Name'],
      ['Contact', 'Contact.Name'],
      ['Owner', 'Owner.Name'],
    ],
    heading: (r) => `Case ${field(r, 'CaseNumber') ?? field(r, 'Id')}: ${field(r, 'Subject') ?? '(no subject)'}`,
  },
};

export const COMMENT_FIELDS = ['Id', 'ParentId', 'CommentBody', 'IsPublished', 'CreatedById', 'CreatedBy.Name', 'CreatedDate', 'SystemModstamp'];

/** The knowledge article version fields read, plus the configured body fields. */
export function knowledgeFields(s: Pick<SalesforceSettings, 'knowledge_body_fields'>): string[] {
  return ['Id', 'KnowledgeArticleId', 'ArticleNumber', 'Title', 'Summary', 'UrlName', 'Language', 'VersionNumber', 'LastPublishedDate', 'CreatedById', 'CreatedBy.Name', 'CreatedBy.Email', ...DATES, ...s.knowledge_body_fields];
}

export const DOCUMENT_TYPE: Record<SalesforceObject, string> = { account: 'account', contact: 'contact', opportunity: 'opportunity', case: 'case', knowledge_article: 'knowledge_article' };
export const externalId = (object: SalesforceObject, id: string): string => `${object}:${id}`;

export const lightningUrl = (instance: string, sobject: string, id: string): string => `${instance.replace(/\/+$/, '')}/lightning/r/${sobject}/${encodeURIComponent(id)}/view`;

/** Lower-cased email where Salesforce gives it, else `salesforce:<user id>`. */
export function person(email: string | null, id: string | null): string | undefined {
  if (email) return email.toLowerCase();
  return id ? `salesforce:${id}` : undefined;
}

/**
 * The record owner: its email (lower-cased) where Salesforce gives it and `salesforce:<OwnerId>`. A queue (owner ids
 * starting 00G) is a group. Simplified sharing model: role hierarchy, sharing rules and org-wide defaults are not read.
 */
export function ownerAcl(r: SfRecord): SourceAcl {
  const id = field(r, 'OwnerId');
  if (!id) return {};
  if (id.startsWith('00G')) return { groups: [`salesforce:${id}`] };
  const email = field(r, 'Owner.Email');
  return { users: [...(email ? [email.toLowerCase()] : []), `salesforce:${id}`] };
}

function lineText(label: string, value: string | null): string {
  return value ? `${label}: ${value}` : '';
}

export function recordToDocument(object: Exclude<SalesforceObject, 'knowledge_article'>, r: SfRecord, instance: string, comments: readonly SfRecord[] = []): SourceDocument {
  const spec = SPECS[object];
  const id = field(r, 'Id') ?? '';
  const heading = spec.heading(r);
  const description = field(r, 'Description');
  const lines = [heading, ...spec.lines.map(([label, path]) => lineText(label, field(r, path)))].filter(Boolean);
  const parts = [lines.join('\n'), description ? `Description: ${description}` : ''];
  if (comments.length > 0) {
    parts.push(
      [
        'Comments:',
        ...comments.map((c) => {
          const who = field(c, 'CreatedBy.Name') ?? field(c, 'CreatedById') ?? 'someone';
          const when = field(c, 'CreatedDate');
          const visibility = field(c, 'IsPublished') === 'true' ? '' : ' [internal]';
          return `- ${who}${when ? ` (${sfTime(when).slice(0, 10)})` : ''}${visibility}: ${field(c, 'CommentBody') ?? ''}`;
        }),
      ].join('\n'),
    );
  }
  const created = field(r, 'CreatedDate');
  const updated = field(r, 'LastModifiedDate');
  return {
    external_id: externalId(object, id),
    title: object === 'case' ? heading : (field(r, 'Name') ?? heading),
    content: parts.filter((s) => s.trim()).join('\n\n'),
    url: lightningUrl(instance, spec.sobject, id),
    author: person(field(r, 'Owner.Email'), field(r, 'OwnerId')),
    document_type: DOCUMENT_TYPE[object],
    ...(created ? { created_at: sfTime(created) } : {}),
    ...(updated ? { updated_at: sfTime(updated) } : {}),
    metadata: {
      salesforce_id: id,
      sobject: spec.sobject,
      owner_id: field(r, 'OwnerId'),
      owner: field(r, 'Owner.Name'),
      ...(field(r, 'AccountId') ? { account_id: field(r, 'AccountId'), account: field(r, 'Account.Name') } : {}),
      ...(object === 'opportunity' ? { stage: field(r, 'StageName'), amount: typeof r.Amount === 'number' ? r.Amount : null, close_date: field(r, 'CloseDate') } : {}),
      ...(object === 'case'
        ? { case_number: field(r, 'CaseNumber'), status: field(r, 'Status'), priority: field(r, 'Priority'), is_closed: r.IsClosed === true, comment_ids: comments.map((c) => field(c, 'Id')).filter(Boolean) }
        : {}),
      ...(object === 'contact' ? { email: field(r, 'Email')?.toLowerCase() ?? null } : {}),
    },
    acl: ownerAcl(r),
  };
}

/** A published knowledge article (one document per article and language, keyed by KnowledgeArticleId): public to the org. */
export function articleToDocument(r: SfRecord, instance: string, s: Pick<SalesforceSettings, 'knowledge_object' | 'knowledge_body_fields'>): SourceDocument {
  const versionId = field(r, 'Id') ?? '';
  const articleId = field(r, 'KnowledgeArticleId') ?? versionId;
  const language = field(r, 'Language');
  const title = field(r, 'Title') ?? field(r, 'ArticleNumber') ?? articleId;
  const body = s.knowledge_body_fields
    .map((f) => field(r, f))
    .filter((v): v is string => Boolean(v))
    .map((html) => parseHtml(html).content)
    .filter(Boolean);
  const lines = [`Article: ${title}`, lineText('Article number', field(r, 'ArticleNumber')), lineText('Summary', field(r, 'Summary'))].filter(Boolean);
  const created = field(r, 'CreatedDate');
  const updated = field(r, 'LastPublishedDate') ?? field(r, 'LastModifiedDate');
  return {
    external_id: articleExternalId(articleId, language),
    title,
    content: [lines.join('\n'), ...body].join('\n\n'),
    url: lightningUrl(instance, s.knowledge_object, versionId),
    author: person(field(r, 'CreatedBy.Email'), field(r, 'CreatedById')),
    document_type: 'knowledge_article',
    ...(created ? { created_at: sfTime(created) } : {}),
    ...(updated ? { updated_at: sfTime(updated) } : {}),
    metadata: {
      salesforce_id: versionId,
      knowledge_article_id: articleId,
      article_number: field(r, 'ArticleNumber'),
      url_name: field(r, 'UrlName'),
      language,
      version_number: typeof r.VersionNumber === 'number' ? r.VersionNumber : null,
    },
    acl: { public: true },
  };
}

/** Articles are keyed by their KnowledgeArticleId (stable across published versions) and language. */
export const articleExternalId = (articleId: string, language: string | null): string => `knowledge_article:${articleId}${language ? `:${language}` : ''}`;
