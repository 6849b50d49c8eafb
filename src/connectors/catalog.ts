import { z } from 'zod';
import { airtableKind } from './airtable/index.ts';
import { anthropicKind } from './anthropic/index.ts';
import { apiKind } from './api/index.ts';
import { asanaKind } from './asana/index.ts';
import type { AnyKind } from './kit/contract.ts';
import type { CatalogEntry } from './schemas.ts';
import { codaKind } from './coda/index.ts';
import { confluenceKind } from './confluence/index.ts';
import { discourseKind } from './discourse/index.ts';
import { cursorKind } from './cursor/index.ts';
import { bitbucketKind } from './bitbucket/index.ts';
import { discordKind } from './discord/index.ts';
import { dropboxKind } from './dropbox/index.ts';
import { boxKind } from './box/index.ts';
import { clickupKind } from './clickup/index.ts';
import { filesystemKind } from './filesystem/index.ts';
import { freshdeskKind } from './freshdesk/index.ts';
import { frontKind } from './front/index.ts';
import { githubKind } from './github/index.ts';
import { gmailKind } from './gmail/index.ts';
import { googleCalendarKind } from './google_calendar/index.ts';
import { googleDriveKind } from './google_drive/index.ts';
import { guruKind } from './guru/index.ts';
import { helpscoutKind } from './helpscout/index.ts';
import { hubspotKind } from './hubspot/index.ts';
import { intercomKind } from './intercom/index.ts';
import { jiraKind } from './jira/index.ts';
import { gitbookKind } from './gitbook/index.ts';
import { gitlabKind } from './gitlab/index.ts';
import { linearKind } from './linear/index.ts';
import { mattermostKind } from './mattermost/index.ts';
import { mondayKind } from './monday/index.ts';
import { notionKind } from './notion/index.ts';
import { openaiKind } from './openai/index.ts';
import { outlookKind } from './outlook/index.ts';
import { salesforceKind } from './salesforce/index.ts';
import { pipedriveKind } from './pipedrive/index.ts';
import { rssKind } from './rss/index.ts';
import { servicenowKind } from './servicenow/index.ts';
import { sharepointKind } from './sharepoint/index.ts';
import { slackKind } from './slack/index.ts';
import { teamsKind } from './teams/index.ts';
import { trelloKind } from './trello/index.ts';
import { webKind } from './web/index.ts';
import { zohoCrmKind } from './zoho_crm/index.ts';
import { zulipKind } from './zulip/index.ts';
import { zendeskKind } from './zendesk/index.ts';

/** Every implemented kind, one a line. Only kinds that really work are listed here (and so in the catalogue). */
const KINDS: readonly AnyKind[] = [
  airtableKind as AnyKind,
  anthropicKind as AnyKind,
  apiKind as AnyKind,
  asanaKind as AnyKind,
  bitbucketKind as AnyKind,
  boxKind as AnyKind,
  clickupKind as AnyKind,
  codaKind as AnyKind,
  confluenceKind as AnyKind,
  cursorKind as AnyKind,
  discordKind as AnyKind,
  discourseKind as AnyKind,
  dropboxKind as AnyKind,
  freshdeskKind as AnyKind,
  frontKind as AnyKind,
  gitbookKind as AnyKind,
  githubKind as AnyKind,
  gitlabKind as AnyKind,
  gmailKind as AnyKind,
  googleCalendarKind as AnyKind,
  googleDriveKind as AnyKind,
  guruKind as AnyKind,
  helpscoutKind as AnyKind,
  hubspotKind as AnyKind,
  intercomKind as AnyKind,
  jiraKind as AnyKind,
  linearKind as AnyKind,
  mattermostKind as AnyKind,
  mondayKind as AnyKind,
  notionKind as AnyKind,
  openaiKind as AnyKind,
  outlookKind as AnyKind,
  pipedriveKind as AnyKind,
  rssKind as AnyKind,
  salesforceKind as AnyKind,
  servicenowKind as AnyKind,
  sharepointKind as AnyKind,
  slackKind as AnyKind,
  teamsKind as AnyKind,
  trelloKind as AnyKind,
  webKind as AnyKind,
  zendeskKind as AnyKind,
  zohoCrmKind as AnyKind,
  zulipKind as AnyKind,
];

const byType = new Map<string, AnyKind>();

export function registerKind(kind: AnyKind): void {
  byType.set(kind.type, kind);
}
for (const k of KINDS) registerKind(k);

let filesystemRoots: readonly string[] = [];
/** The folders `filesystem` connectors may read (ATRIUM_FILESYSTEM_ROOTS); set once by the runtime. */
export function setFilesystemRoots(roots: readonly string[]): void {
  filesystemRoots = roots;
}
registerKind(filesystemKind(() => filesystemRoots) as AnyKind);

export function getKind(type: string): AnyKind | undefined {
  return byType.get(type);
}

export function listKinds(): AnyKind[] {
  return [...byType.values()].sort((a, b) => a.type.localeCompare(b.type));
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

export function catalogEntry(kind: AnyKind): CatalogEntry {
  return {
    connector_type: kind.type,
    display_name: kind.displayName,
    category: kind.category,
    group: kind.group,
    auth_type: kind.authTypes[0] ?? 'none',
    auth_types: [...kind.authTypes],
    oauth: kind.oauth !== undefined,
    credentials_schema: jsonSchema(kind.credentials),
    settings_schema: jsonSchema(kind.settings),
    content_types: [...kind.contentTypes],
    sync: kind.sync !== undefined,
    actions: (kind.actions ?? []).map((a) => ({ name: a.name, description: a.description, parameters: jsonSchema(a.parameters) })),
    webhook_events: [...(kind.webhook?.events ?? [])],
    vendor_limits: { ...kind.vendorLimits },
  };
}
