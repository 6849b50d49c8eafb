import { z } from 'zod';
import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { linearRequest } from './client.ts';
import {
  attachmentToDocument,
  commentToDocument,
  cycleToDocument,
  documentToDocument,
  issueToDocument,
  type LinAttachment,
  type LinComment,
  type LinCycle,
  type LinDocument,
  type LinIssue,
  type LinMilestone,
  type LinProject,
  laterIso,
  milestoneToDocument,
  projectToDocument,
} from './map.ts';
import { readTeamMembers } from './members.ts';
import type { LinearCredentials, LinearSettings } from './schemas.ts';

type Ctx = SourceContext<LinearCredentials, LinearSettings>;

const PAGE_SIZE = 50;
const TEAM = 'id key name';
const WHO = 'id name displayName';

/**
 * GraphQL selections, kept to the fields the mappers read. Linear bills query complexity (nested connections
 * multiply by their `first`, default 50; 10,000 per query), so nested connections ask for few nodes.
 */
export const FIELDS = {
  issue: `id identifier title description url priority priorityLabel estimate dueDate createdAt updatedAt archivedAt completedAt
    creator { ${WHO} } assignee { ${WHO} } state { name type } team { ${TEAM} } project { id name } cycle { id number name } labels(first: 25) { nodes { name } }`,
  project: `id name description content url state startDate targetDate createdAt updatedAt archivedAt creator { ${WHO} } lead { ${WHO} } teams(first: 10) { nodes { ${TEAM} } }`,
  cycle: `id number name description startsAt endsAt completedAt createdAt updatedAt archivedAt team { ${TEAM} }`,
  document: `id title content url createdAt updatedAt archivedAt creator { ${WHO} } project { id name teams(first: 10) { nodes { ${TEAM} } } }`,
  milestone: `id name description targetDate createdAt updatedAt archivedAt project { id name url teams(first: 10) { nodes { ${TEAM} } } }`,
  comment: `id body url createdAt updatedAt archivedAt user { ${WHO} } issue { id identifier title team { ${TEAM} } }`,
  attachment: `id title subtitle url sourceType createdAt updatedAt archivedAt creator { ${WHO} } issue { id identifier title team { ${TEAM} } }`,
} as const;

type Node = { id: string; updatedAt: string; archivedAt?: string | null };

export interface Entity {
  /** The root connection field and its filter input type in Linear's schema. */
  readonly field: string;
  readonly filterType: string;
  readonly fields: string;
  enabled(s: LinearSettings): boolean;
  /** The team restriction in the entity's filter shape. */
  teamFilter(teamIds: string[]): Record<string, unknown> | null;
  /** Teams the node belongs to (empty = workspace-wide), for kinds the server cannot filter by team. */
  teamsOf?(node: Node): string[];
  toDocument(node: Node, workspaceUrl: string): SourceDocument;
}

const inTeams = (ids: string[]) => ({ id: { in: ids } });
const accessible = (ids: string[]) => ({ accessibleTeams: { some: inTeams(ids) } });

export const ENTITIES = {
  issues: { field: 'issues', filterType: 'IssueFilter', fields: FIELDS.issue, enabled: () => true, teamFilter: (t) => ({ team: inTeams(t) }), toDocument: (n) => issueToDocument(n as LinIssue) },
  projects: { field: 'projects', filterType: 'ProjectFilter', fields: FIELDS.project, enabled: () => true, teamFilter: accessible, toDocument: (n) => projectToDocument(n as LinProject) },
  cycles: { field: 'cycles', filterType: 'CycleFilter', fields: FIELDS.cycle, enabled: () => true, teamFilter: (t) => ({ team: inTeams(t) }), toDocument: (n, w) => cycleToDocument(n as LinCycle, w) },
  documents: { field: 'documents', filterType: 'DocumentFilter', fields: FIELDS.document, enabled: () => true, teamFilter: (t) => ({ project: accessible(t) }), toDocument: (n) => documentToDocument(n as LinDocument) },
  milestones: {
    field: 'projectMilestones',
    filterType: 'ProjectMilestoneFilter',
    fields: FIELDS.milestone,
    enabled: () => true,
    teamFilter: (t) => ({ project: accessible(t) }),
    toDocument: (n) => milestoneToDocument(n as LinMilestone),
  },
  comments: { field: 'comments', filterType: 'CommentFilter', fields: FIELDS.comment, enabled: (s) => s.include_comments, teamFilter: (t) => ({ issue: { team: inTeams(t) } }), toDocument: (n) => commentToDocument(n as LinComment) },
  attachments: {
    field: 'attachments',
    filterType: 'AttachmentFilter',
    fields: FIELDS.attachment,
    enabled: (s) => s.sync_attachments,
    teamFilter: () => null,
    teamsOf: (n) => {
      const issue = (n as LinAttachment).issue;
      return issue ? [issue.team.id] : [];
    },
    toDocument: (n) => attachmentToDocument(n as LinAttachment),
  },
} satisfies Record<string, Entity>;
export type EntityName = keyof typeof ENTITIES;
const ORDER = Object.keys(ENTITIES) as EntityName[];

export const linearPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', ...(ORDER as [EntityName, ...EntityName[]])]),
  teamIds: z.array(z.string()).nullable(),
  workspaceUrl: z.string(),
  after: z.string().nullable(),
  /** Per object kind: the cursor this sync reads after (incremental) and the latest updatedAt seen so far. */
  since: z.record(z.string(), z.string()),
  maxUpdated: z.record(z.string(), z.string()),
});
export type LinearPage = z.infer<typeof linearPage>;
/** Per object kind, so an object edited during a sync in an earlier phase is not skipped by a later phase's newer time. */
export const linearCursor = z.object({ since: z.record(z.string(), z.string()) });
export type LinearCursor = z.infer<typeof linearCursor>;

const cursorOf = (p: LinearPage): LinearCursor => ({ since: p.maxUpdated });

function nextEntity(p: LinearPage, settings: LinearSettings, from: LinearPage['phase']): LinearPage | null {
  const start = from === 'setup' ? 0 : ORDER.indexOf(from) + 1;
  const phase = ORDER.slice(start).find((e) => ENTITIES[e].enabled(settings));
  return phase ? { ...p, phase, after: null } : null;
}

interface TeamsAnswer {
  organization: { urlKey: string };
  teams: { nodes: { id: string; key: string; name: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

/** Resolves the `teams` setting (keys or ids) against the teams the key can read; null = every team. */
async function resolveTeams(ctx: Ctx): Promise<{ teamIds: string[] | null; workspaceUrl: string; inScope: string[] }> {
  const all: TeamsAnswer['teams']['nodes'] = [];
  let after: string | null = null;
  let urlKey = '';
  do {
    const r: TeamsAnswer = await linearRequest<TeamsAnswer>(ctx, `query Teams($after: String) { organization { urlKey } teams(first: 100, after: $after) { nodes { ${TEAM} } pageInfo { hasNextPage endCursor } } }`, { after });
    urlKey = r.organization.urlKey;
    all.push(...r.teams.nodes);
    after = r.teams.pageInfo.hasNextPage ? r.teams.pageInfo.endCursor : null;
  } while (after);
  const workspaceUrl = `https://linear.app/${urlKey}`;
  const wanted = ctx.settings.teams;
  if (!wanted) return { teamIds: null, workspaceUrl, inScope: all.map((t) => t.id) };
  const missing = wanted.filter((w) => !all.some((t) => t.key === w || t.id === w));
  if (missing.length > 0) throw new Error(`Linear has no team ${missing.join(', ')} readable with this key (known: ${all.map((t) => t.key).join(', ')})`);
  const teamIds = all.filter((t) => wanted.includes(t.key) || wanted.includes(t.id)).map((t) => t.id);
  return { teamIds, workspaceUrl, inScope: teamIds };
}

export function connectionQuery(e: Entity): string {
  return `query Sync($first: Int!, $after: String, $filter: ${e.filterType}, $includeArchived: Boolean) {
  ${e.field}(first: $first, after: $after, filter: $filter, includeArchived: $includeArchived, orderBy: updatedAt) {
    nodes { ${e.fields} }
    pageInfo { hasNextPage endCursor }
  }
}`;
}

async function readPage(ctx: Ctx, p: LinearPage): Promise<Page<LinearPage, LinearCursor>> {
  if (p.phase === 'setup') {
    const { teamIds, workspaceUrl, inScope } = await resolveTeams(ctx);
    // The `linear:team:<id>` ACL groups' members, re-read on every sync.
    const identities = await readTeamMembers(ctx, inScope);
    return { documents: [], identities, next: nextEntity({ ...p, teamIds, workspaceUrl }, ctx.settings, 'setup'), cursor: cursorOf(p) };
  }
  const entity: Entity = ENTITIES[p.phase];
  const since = p.since[p.phase];
  const filter: Record<string, unknown> = {
    ...(since ? { updatedAt: { gt: since } } : {}),
    ...(p.teamIds ? (entity.teamFilter(p.teamIds) ?? {}) : {}),
  };
  // An incremental sync also asks for archived items, so an archival since the cursor removes the document.
  const includeArchived = p.mode === 'incremental' || ctx.settings.include_archived;
  const r = await linearRequest<Record<string, { nodes: Node[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }>>(ctx, connectionQuery(entity), {
    first: PAGE_SIZE,
    after: p.after,
    filter: Object.keys(filter).length > 0 ? filter : null,
    includeArchived,
  });
  const conn = r[entity.field];
  if (!conn) throw new Error(`Linear answered without ${entity.field}`);
  const teamIds = p.teamIds;
  const inScope = (n: Node) => !teamIds || !entity.teamsOf || entity.teamsOf(n).some((t) => teamIds.includes(t));
  const nodes = conn.nodes.filter(inScope);
  const keep = nodes.filter((n) => !n.archivedAt || ctx.settings.include_archived);
  const gone = nodes.filter((n) => n.archivedAt && !ctx.settings.include_archived);
  const latest = conn.nodes.reduce<string | null>((m, n) => laterIso(m, n.updatedAt), p.maxUpdated[p.phase] ?? null);
  const maxUpdated = latest ? { ...p.maxUpdated, [p.phase]: latest } : p.maxUpdated;
  const documents = keep.map((n) => entity.toDocument(n, p.workspaceUrl));
  const deleted = gone.map((n) => entity.toDocument(n, p.workspaceUrl).external_id);
  const next = conn.pageInfo.hasNextPage && conn.pageInfo.endCursor ? { ...p, after: conn.pageInfo.endCursor, maxUpdated } : nextEntity({ ...p, maxUpdated }, ctx.settings, p.phase);
  return { documents, deleted, next, cursor: cursorOf({ ...p, maxUpdated }) };
}

export const linearSync: SyncCapability<LinearCredentials, LinearSettings, LinearCursor, LinearPage> = {
  cursorSchema: linearCursor,
  pageSchema: linearPage,
  start(mode: SyncMode, since: LinearCursor | null): LinearPage {
    const previous = since?.since ?? {};
    return { mode, phase: 'setup', teamIds: null, workspaceUrl: 'https://linear.app', after: null, since: mode === 'incremental' ? previous : {}, maxUpdated: previous };
  },
  readPage,
};
