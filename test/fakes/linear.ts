import { buildSchema, graphql } from 'graphql';
import { VendorFake } from './kit/index.ts';

/**
 * A local Linear GraphQL API fake (POST /graphql), executed by graphql-js against a schema that mirrors the
 * subset of Linear's schema the connector uses: Relay connections (`nodes`, `pageInfo { hasNextPage endCursor }`,
 * `first`/`after`, cursor = the last node's id), Linear's filter inputs (`updatedAt: { gt }`, `team: { id: { in } }`,
 * `accessibleTeams: { some: … }`, `and`/`or`), `includeArchived`, `orderBy`. Personal API keys are sent bare in
 * `Authorization`; a wrong key answers HTTP 400 with an `AUTHENTICATION_ERROR`, a rate limit answers either
 * HTTP 400 with a `RATELIMITED` GraphQL error (Linear's documented shape) or HTTP 429 with Retry-After, and every
 * answer carries the `X-RateLimit-Requests-*` headers.
 */
const SDL = `
scalar DateTime
scalar TimelessDate
enum PaginationOrderBy { createdAt updatedAt }
type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
input IDComparator { eq: ID neq: ID in: [ID!] nin: [ID!] }
input StringComparator { eq: String neq: String in: [String!] nin: [String!] }
input DateComparator { eq: DateTime neq: DateTime gt: DateTime gte: DateTime lt: DateTime lte: DateTime }
input TeamFilter { id: IDComparator key: StringComparator and: [TeamFilter!] or: [TeamFilter!] }
input TeamCollectionFilter { some: TeamFilter every: TeamFilter }
input NullableProjectFilter { id: IDComparator accessibleTeams: TeamCollectionFilter null: Boolean and: [NullableProjectFilter!] or: [NullableProjectFilter!] }
input NullableIssueFilter { id: IDComparator team: TeamFilter null: Boolean and: [NullableIssueFilter!] or: [NullableIssueFilter!] }
input IssueFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator team: TeamFilter and: [IssueFilter!] or: [IssueFilter!] }
input ProjectFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator accessibleTeams: TeamCollectionFilter and: [ProjectFilter!] or: [ProjectFilter!] }
input CycleFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator team: TeamFilter and: [CycleFilter!] or: [CycleFilter!] }
input DocumentFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator project: NullableProjectFilter and: [DocumentFilter!] or: [DocumentFilter!] }
input ProjectMilestoneFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator project: NullableProjectFilter and: [ProjectMilestoneFilter!] or: [ProjectMilestoneFilter!] }
input CommentFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator issue: NullableIssueFilter and: [CommentFilter!] or: [CommentFilter!] }
input AttachmentFilter { id: IDComparator createdAt: DateComparator updatedAt: DateComparator and: [AttachmentFilter!] or: [AttachmentFilter!] }
type Organization { id: ID! name: String! urlKey: String! }
type User { id: ID! name: String! displayName: String! email: String! active: Boolean! }
type UserConnection { nodes: [User!]! pageInfo: PageInfo! }
type Team { id: ID! key: String! name: String! private: Boolean! members(first: Int, after: String, includeArchived: Boolean, includeDisabled: Boolean): UserConnection! }
type TeamConnection { nodes: [Team!]! pageInfo: PageInfo! }
type WorkflowState { id: ID! name: String! type: String! }
type IssueLabel { id: ID! name: String! }
type IssueLabelConnection { nodes: [IssueLabel!]! pageInfo: PageInfo! }
type Issue { id: ID! identifier: String! title: String! description: String url: String! priority: Float! priorityLabel: String! estimate: Float dueDate: TimelessDate
  createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime completedAt: DateTime creator: User assignee: User state: WorkflowState! team: Team!
  project: Project cycle: Cycle labels(first: Int, after: String): IssueLabelConnection! }
type Project { id: ID! name: String! description: String! content: String url: String! state: String! startDate: TimelessDate targetDate: TimelessDate
  createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime creator: User lead: User teams(first: Int, after: String): TeamConnection! }
type Cycle { id: ID! number: Float! name: String description: String startsAt: DateTime! endsAt: DateTime! completedAt: DateTime createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime team: Team! }
type Document { id: ID! title: String! content: String url: String! createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime creator: User project: Project }
type ProjectMilestone { id: ID! name: String! description: String targetDate: TimelessDate createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime project: Project! }
type Comment { id: ID! body: String! url: String! createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime user: User issue: Issue }
type Attachment { id: ID! title: String! subtitle: String url: String! sourceType: String createdAt: DateTime! updatedAt: DateTime! archivedAt: DateTime creator: User issue: Issue! }
type IssueConnection { nodes: [Issue!]! pageInfo: PageInfo! }
type ProjectConnection { nodes: [Project!]! pageInfo: PageInfo! }
type CycleConnection { nodes: [Cycle!]! pageInfo: PageInfo! }
type DocumentConnection { nodes: [Document!]! pageInfo: PageInfo! }
type ProjectMilestoneConnection { nodes: [ProjectMilestone!]! pageInfo: PageInfo! }
type CommentConnection { nodes: [Comment!]! pageInfo: PageInfo! }
type AttachmentConnection { nodes: [Attachment!]! pageInfo: PageInfo! }
type IssuePayload { success: Boolean! issue: Issue }
type CommentPayload { success: Boolean! comment: Comment }
input IssueCreateInput { teamId: String! title: String! description: String priority: Int }
input CommentCreateInput { issueId: String! body: String! }
type Query {
  viewer: User!
  organization: Organization!
  teams(first: Int, after: String, filter: TeamFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): TeamConnection!
  team(id: String!): Team!
  issues(first: Int, after: String, filter: IssueFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): IssueConnection!
  projects(first: Int, after: String, filter: ProjectFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): ProjectConnection!
  cycles(first: Int, after: String, filter: CycleFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): CycleConnection!
  documents(first: Int, after: String, filter: DocumentFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): DocumentConnection!
  projectMilestones(first: Int, after: String, filter: ProjectMilestoneFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): ProjectMilestoneConnection!
  comments(first: Int, after: String, filter: CommentFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): CommentConnection!
  attachments(first: Int, after: String, filter: AttachmentFilter, includeArchived: Boolean, orderBy: PaginationOrderBy): AttachmentConnection!
  issue(id: String!): Issue!
  project(id: String!): Project!
  cycle(id: String!): Cycle!
  document(id: String!): Document!
  projectMilestone(id: String!): ProjectMilestone!
  comment(id: String!): Comment!
  attachment(id: String!): Attachment!
}
type Mutation {
  issueCreate(input: IssueCreateInput!): IssuePayload!
  commentCreate(input: CommentCreateInput!): CommentPayload!
}
`;

export interface LUser {
  id: string;
  name: string;
  displayName: string;
  email: string;
  /** false: deactivated in the workspace (default true). */
  active?: boolean;
}
export interface LTeam {
  id: string;
  key: string;
  name: string;
}
interface Stamped {
  id: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}
export interface LIssue extends Stamped {
  identifier: string;
  title: string;
  description: string | null;
  url: string;
  priority: number;
  priorityLabel: string;
  estimate: number | null;
  dueDate: string | null;
  completedAt: string | null;
  creator: LUser | null;
  assignee: LUser | null;
  state: { id: string; name: string; type: string };
  team: LTeam;
  project: LProject | null;
  cycle: LCycle | null;
  labels: { nodes: { id: string; name: string }[] };
}
export interface LProject extends Stamped {
  name: string;
  description: string;
  content: string | null;
  url: string;
  state: string;
  startDate: string | null;
  targetDate: string | null;
  creator: LUser | null;
  lead: LUser | null;
  teams: { nodes: LTeam[] };
}
export interface LCycle extends Stamped {
  number: number;
  name: string | null;
  description: string | null;
  startsAt: string;
  endsAt: string;
  completedAt: string | null;
  team: LTeam;
}
export interface LDocument extends Stamped {
  title: string;
  content: string | null;
  url: string;
  creator: LUser | null;
  project: LProject | null;
}
export interface LMilestone extends Stamped {
  name: string;
  description: string | null;
  targetDate: string | null;
  project: LProject;
}
export interface LComment extends Stamped {
  body: string;
  url: string;
  user: LUser | null;
  issue: LIssue;
}
export interface LAttachment extends Stamped {
  title: string;
  subtitle: string | null;
  url: string;
  sourceType: string | null;
  creator: LUser | null;
  issue: LIssue;
}

export interface LinearData {
  organization: { id: string; name: string; urlKey: string };
  viewer: LUser;
  users: LUser[];
  teams: LTeam[];
  /** Per team id, the ids of its members (`Team.members`); a team not listed has none. */
  teamMembers: Record<string, string[]>;
  issues: LIssue[];
  projects: LProject[];
  cycles: LCycle[];
  documents: LDocument[];
  milestones: LMilestone[];
  comments: LComment[];
  attachments: LAttachment[];
}

export interface FakeLinear {
  readonly url: string;
  readonly apiKey: string;
  /** An OAuth access token the fake accepts (as a Bearer token). */
  readonly oauthToken: string;
  readonly data: LinearData;
  readonly calls: { operation: string; variables: Record<string, unknown> }[];
  /** The next `count` requests are rate limited: `graphql` = HTTP 400 + RATELIMITED (reset header), `http` = HTTP 429 + Retry-After. */
  rateLimitNext(count: number, retryAfterSeconds: number, style?: 'graphql' | 'http'): void;
  /** A fresh timestamp later than every stored one (for edits after a sync). */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const iso = (minutes: number) => new Date(BASE + minutes * 60_000).toISOString();
const uuid = (prefix: string, n: number) => `${prefix}${String(n).padStart(4, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A deterministic workspace: two teams, issues with states/labels/priorities, projects, cycles, docs, milestones, comments, attachments. */
export function seedLinear(opts: { issuesPerTeam?: number } = {}): LinearData {
  const per = opts.issuesPerTeam ?? 30;
  let clock = 0;
  const at = () => iso(clock++);
  const org = { id: uuid('0a', 1), name: 'Atrium Test', urlKey: 'atrium-test' };
  const web = `https://linear.app/${org.urlKey}`;
  const users: LUser[] = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson'].map((name, i) => ({
    id: uuid('a0', i + 1),
    name,
    displayName: name.split(' ')[0]?.toLowerCase() ?? name,
    email: `${name.split(' ')[0]?.toLowerCase()}@atrium.test`,
  }));
  const u = (i: number) => users[i % users.length] ?? null;
  const teams: LTeam[] = [
    { id: uuid('b0', 1), key: 'ENG', name: 'Engineering' },
    { id: uuid('b0', 2), key: 'DES', name: 'Design' },
  ];
  const states = [
    { id: 's1', name: 'Backlog', type: 'backlog' },
    { id: 's2', name: 'Todo', type: 'unstarted' },
    { id: 's3', name: 'In Progress', type: 'started' },
    { id: 's4', name: 'Done', type: 'completed' },
  ];
  const labels = ['Bug', 'Feature', 'Improvement', 'Security'].map((name, i) => ({ id: `l${i}`, name }));
  const priorities = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];
  const topics = ['login redirect loop', 'search ranking for acronyms', 'webhook retries', 'dark mode contrast', 'CSV export encoding', 'SAML clock skew', 'slow dashboard query', 'onboarding checklist'];
  const projects: LProject[] = teams.map((t, i) => {
    const c = at();
    return {
      id: uuid('c0', i + 1),
      name: `${t.name} Q1 roadmap`,
      description: `Goals of ${t.name} for the quarter`,
      content: `# ${t.name} Q1\n\nShip the ${topics[i]} fix and measure it.`,
      url: `${web}/project/${t.key.toLowerCase()}-q1-roadmap-${i + 1}`,
      state: 'started',
      startDate: '2026-01-05',
      targetDate: '2026-03-31',
      createdAt: c,
      updatedAt: c,
      archivedAt: null,
      creator: u(i),
      lead: u(i + 1),
      teams: { nodes: [t] },
    };
  });
  const cycles: LCycle[] = teams.flatMap((t, ti) =>
    [1, 2].map((n) => {
      const c = at();
      return {
        id: uuid('d0', ti * 10 + n),
        number: n,
        name: n === 1 ? 'Kickoff' : null,
        description: `Cycle ${n} of ${t.name}`,
        startsAt: iso(n * 14 * 24 * 60),
        endsAt: iso((n + 1) * 14 * 24 * 60),
        completedAt: null,
        createdAt: c,
        updatedAt: c,
        archivedAt: null,
        team: t,
      };
    }),
  );
  const issues: LIssue[] = [];
  for (const [ti, t] of teams.entries()) {
    for (let n = 1; n <= per; n++) {
      const c = at();
      const topic = topics[(n + ti) % topics.length] ?? 'misc';
      const p = n % 5;
      const state = states[n % states.length] ?? states[0];
      issues.push({
        id: uuid('e0', ti * 1000 + n),
        identifier: `${t.key}-${n}`,
        title: `${n % 3 === 0 ? 'Fix' : 'Investigate'} ${topic} (${t.key}-${n})`,
        description: `Customers report ${topic}. Steps to reproduce and expected behaviour are in the thread. Ref ${t.key}-${n}.`,
        url: `${web}/issue/${t.key}-${n}/${topic.replace(/\W+/g, '-')}`,
        priority: p,
        priorityLabel: priorities[p] ?? 'No priority',
        estimate: n % 4 === 0 ? null : (n % 3) + 1,
        dueDate: n % 6 === 0 ? '2026-02-15' : null,
        completedAt: state?.type === 'completed' ? c : null,
        creator: u(n),
        assignee: n % 2 === 0 ? u(n + 1) : null,
        state: state ?? { id: 's1', name: 'Backlog', type: 'backlog' },
        team: t,
        project: n % 2 === 0 ? (projects[ti] ?? null) : null,
        cycle: n % 3 === 0 ? (cycles[ti * 2] ?? null) : null,
        labels: { nodes: labels.filter((_, li) => (n + li) % 3 === 0) },
        createdAt: c,
        updatedAt: c,
        archivedAt: n === per ? c : null, // the last issue of each team is archived
      });
    }
  }
  const documents: LDocument[] = projects.map((p, i) => {
    const c = at();
    return { id: uuid('f0', i + 1), title: `${p.name}: design notes`, content: `Decisions for ${p.name}: we keep the ${topics[i + 2]} work small.`, url: `${web}/document/design-notes-${i + 1}`, creator: u(i), project: p, createdAt: c, updatedAt: c, archivedAt: null };
  });
  const milestones: LMilestone[] = projects.map((p, i) => {
    const c = at();
    return { id: uuid('90', i + 1), name: 'Beta', description: `Beta of ${p.name}`, targetDate: '2026-02-28', project: p, createdAt: c, updatedAt: c, archivedAt: null };
  });
  const comments: LComment[] = issues
    .filter((_, i) => i % 4 === 0)
    .map((issue, i) => {
      const c = at();
      return { id: uuid('70', i + 1), body: `I can reproduce ${issue.identifier} on staging; the ${issue.title.toLowerCase()} happens after a deploy.`, url: `${issue.url}#comment-${i + 1}`, user: u(i + 2), issue, createdAt: c, updatedAt: c, archivedAt: null };
    });
  const attachments: LAttachment[] = issues
    .filter((_, i) => i % 7 === 0)
    .map((issue, i) => {
      const c = at();
      return { id: uuid('60', i + 1), title: `PR #${100 + i}`, subtitle: 'Open · 2 approvals', url: `https://github.com/atrium/app/pull/${100 + i}`, sourceType: 'github', creator: u(i), issue, createdAt: c, updatedAt: c, archivedAt: null };
    });
  // Engineering: Ada and Grace; Design: Alan and Katherine.
  const teamMembers = Object.fromEntries(teams.map((t, i) => [t.id, users.slice(i * 2, i * 2 + 2).map((x) => x.id)]));
  return { organization: org, viewer: users[0] as LUser, users, teams, teamMembers, issues, projects, cycles, documents, milestones, comments, attachments };
}

type Filter = Record<string, unknown>;
const COMPARATORS = new Set(['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte']);

/** Linear's filter semantics: comparators on scalars, nested filters on relations, `some`/`every` on collections, `and`/`or`. */
export function matches(node: unknown, filter: Filter | null | undefined): boolean {
  if (!filter) return true;
  for (const [key, cond] of Object.entries(filter)) {
    if (cond === null || cond === undefined) continue;
    if (key === 'and') {
      if (!(cond as Filter[]).every((f) => matches(node, f))) return false;
      continue;
    }
    if (key === 'or') {
      if (!(cond as Filter[]).some((f) => matches(node, f))) return false;
      continue;
    }
    if (key === 'null') {
      if ((node === null || node === undefined) !== cond) return false;
      continue;
    }
    if (COMPARATORS.has(key)) {
      const v = node as string | number | null;
      const c = cond as string | number | (string | number)[];
      const ok =
        key === 'eq' ? v === c
        : key === 'neq' ? v !== c
        : key === 'in' ? (c as unknown[]).includes(v)
        : key === 'nin' ? !(c as unknown[]).includes(v)
        : v === null || v === undefined ? false
        : key === 'gt' ? v > (c as string)
        : key === 'gte' ? v >= (c as string)
        : key === 'lt' ? v < (c as string)
        : v <= (c as string);
      if (!ok) return false;
      continue;
    }
    if (key === 'some' || key === 'every') {
      const items = (node as { nodes?: unknown[] } | null)?.nodes ?? [];
      const ok = key === 'some' ? items.some((i) => matches(i, cond as Filter)) : items.every((i) => matches(i, cond as Filter));
      if (!ok) return false;
      continue;
    }
    // Linear filters projects by `accessibleTeams`; the fake keeps them in the `teams` connection.
    const record = node as Record<string, unknown> | null;
    const child = key === 'accessibleTeams' ? record?.teams : record?.[key];
    if (child === null || child === undefined) {
      if ((cond as Filter).null === true) continue;
      return false;
    }
    if (!matches(child, cond as Filter)) return false;
  }
  return true;
}

interface ConnArgs {
  first?: number | null;
  after?: string | null;
  filter?: Filter | null;
  includeArchived?: boolean | null;
  orderBy?: 'createdAt' | 'updatedAt' | null;
}

/** Relay pagination as Linear does it: newest first by the order field, the cursor is the last node's id, first ≤ 250. */
function connection<T extends { id: string; createdAt: string; updatedAt: string; archivedAt?: string | null }>(items: T[], args: ConnArgs) {
  const first = Math.min(args.first ?? 50, 250);
  const order = args.orderBy ?? 'createdAt';
  const list = items
    .filter((i) => args.includeArchived || !i.archivedAt)
    .filter((i) => matches(i, args.filter))
    .sort((a, b) => (a[order] < b[order] ? 1 : a[order] > b[order] ? -1 : a.id.localeCompare(b.id)));
  const start = args.after ? list.findIndex((i) => i.id === args.after) + 1 : 0;
  const nodes = list.slice(start, start + first);
  return {
    nodes,
    pageInfo: { hasNextPage: start + first < list.length, hasPreviousPage: start > 0, startCursor: nodes[0]?.id ?? null, endCursor: nodes.at(-1)?.id ?? null },
  };
}

export async function startFakeLinear(data: LinearData = seedLinear()): Promise<FakeLinear> {
  const apiKey = 'lin_api_fake0123456789abcdefghijklmnopqrstuv';
  const oauthToken = 'lin_oauth_fake0123456789abcdefghijklmnop';
  const schema = buildSchema(SDL);
  const calls: FakeLinear['calls'] = [];
  let limitStyle: 'graphql' | 'http' = 'graphql';
  let clock = Date.parse(iso(100_000));
  const byId = <T extends { id: string }>(list: T[], id: string) => list.find((x) => x.id === id) ?? null;
  /** Linear answers an unknown id with an `Entity not found: <Type>` error (extensions.type "invalid input"). */
  const one = <T extends { id: string }>(type: string, list: T[], id: string) => {
    const found = byId(list, id);
    if (!found) throw new Error(`Entity not found: ${type}`);
    return found;
  };
  const root = {
    viewer: () => data.viewer,
    organization: () => data.organization,
    teams: (a: ConnArgs) => connection(data.teams.map((t) => ({ ...t, createdAt: iso(0), updatedAt: iso(0), archivedAt: null })), { ...a, orderBy: a.orderBy ?? 'createdAt' }),
    issues: (a: ConnArgs) => connection(data.issues, a),
    projects: (a: ConnArgs) => connection(data.projects, a),
    cycles: (a: ConnArgs) => connection(data.cycles, a),
    documents: (a: ConnArgs) => connection(data.documents, a),
    projectMilestones: (a: ConnArgs) => connection(data.milestones, a),
    comments: (a: ConnArgs) => connection(data.comments, a),
    attachments: (a: ConnArgs) => connection(data.attachments, a),
    // Team.members: the team's users, paginated like every connection (users carry no timestamps here).
    team: ({ id }: { id: string }) => ({
      ...one('Team', data.teams, id),
      private: false,
      members: (a: ConnArgs) =>
        connection(
          (data.teamMembers[id] ?? []).map((uid) => ({ ...one('User', data.users, uid), createdAt: iso(0), updatedAt: iso(0), archivedAt: null })).map((u) => ({ ...u, active: u.active ?? true })),
          { ...a, filter: undefined, orderBy: 'createdAt' },
        ),
    }),
    issue: ({ id }: { id: string }) => one('Issue', data.issues, data.issues.find((i) => i.identifier === id)?.id ?? id),
    project: ({ id }: { id: string }) => one('Project', data.projects, id),
    cycle: ({ id }: { id: string }) => one('Cycle', data.cycles, id),
    document: ({ id }: { id: string }) => one('Document', data.documents, id),
    projectMilestone: ({ id }: { id: string }) => one('ProjectMilestone', data.milestones, id),
    comment: ({ id }: { id: string }) => one('Comment', data.comments, id),
    attachment: ({ id }: { id: string }) => one('Attachment', data.attachments, id),
    issueCreate: ({ input }: { input: { teamId: string; title: string; description?: string; priority?: number } }) => {
      const team = byId(data.teams, input.teamId);
      if (!team) throw new Error('Entity not found: Team');
      const n = data.issues.filter((i) => i.team.id === team.id).length + 1;
      const now = new Date(clock++).toISOString();
      const issue: LIssue = {
        id: uuid('e9', data.issues.length + 1),
        identifier: `${team.key}-${n}`,
        title: input.title,
        description: input.description ?? null,
        url: `https://linear.app/${data.organization.urlKey}/issue/${team.key}-${n}`,
        priority: input.priority ?? 0,
        priorityLabel: 'No priority',
        estimate: null,
        dueDate: null,
        completedAt: null,
        creator: data.viewer,
        assignee: null,
        state: { id: 's1', name: 'Backlog', type: 'backlog' },
        team,
        project: null,
        cycle: null,
        labels: { nodes: [] },
        createdAt: now,
        updatedAt: now,
        archivedAt: null,
      };
      data.issues.push(issue);
      return { success: true, issue };
    },
    commentCreate: ({ input }: { input: { issueId: string; body: string } }) => {
      const issue = byId(data.issues, input.issueId);
      if (!issue) throw new Error('Entity not found: Issue');
      const now = new Date(clock++).toISOString();
      const comment: LComment = { id: uuid('79', data.comments.length + 1), body: input.body, url: `${issue.url}#comment-new`, user: data.viewer, issue, createdAt: now, updatedAt: now, archivedAt: null };
      data.comments.push(comment);
      return { success: true, comment };
    },
  };

  const limitHeaders = (remaining: string, reset: number) => ({
    'x-ratelimit-requests-limit': '1500',
    'x-ratelimit-requests-remaining': remaining,
    'x-ratelimit-requests-reset': String(reset),
  });
  // The shared vendor fake: token check, request log, injected rate limits; Linear's own shapes below.
  const fake = new VendorFake({
    name: 'Linear',
    tokens: [apiKey, `Bearer ${oauthToken}`],
    // Personal API keys come bare in Authorization; OAuth access tokens as `Bearer <token>` (Linear's documented forms).
    tokenOf: ({ headers }) => headers.authorization ?? null,
    unauthorized: () => ({
      status: 400,
      headers: limitHeaders('1400', Date.now() + 60_000),
      json: {
        errors: [{ message: 'Authentication required, not authenticated', extensions: { type: 'authentication error', code: 'AUTHENTICATION_ERROR', statusCode: 401, userPresentableMessage: 'You need to authenticate to access this operation.' } }],
      },
    }),
    // Linear's documented shape is HTTP 400 with a RATELIMITED GraphQL error and the reset header; `http` style: 429 + Retry-After.
    rateLimited: (seconds) =>
      limitStyle === 'http'
        ? { status: 429, headers: limitHeaders('0', Date.now() + seconds * 1000), json: { errors: [{ message: 'Rate limit exceeded', extensions: { type: 'ratelimited', code: 'RATELIMITED' } }] } }
        : {
            status: 400,
            headers: { ...limitHeaders('0', Date.now() + seconds * 1000), 'retry-after': '' },
            json: { errors: [{ message: 'Rate limit exceeded', extensions: { type: 'ratelimited', code: 'RATELIMITED', statusCode: 429, userPresentableMessage: 'Too many requests.' } }] },
          },
  });
  fake.route('POST', '/graphql', async (req) => {
    const body = (req.body ?? {}) as { query?: string; variables?: Record<string, unknown>; operationName?: string };
    const operation = /(?:query|mutation)\s+(\w+)/.exec(body.query ?? '')?.[1] ?? 'anonymous';
    calls.push({ operation, variables: body.variables ?? {} });
    const headers = limitHeaders('1400', Date.now() + 60_000);
    const result = await graphql({ schema, source: body.query ?? '', rootValue: root, variableValues: body.variables });
    if (result.errors && result.errors.length > 0) {
      const errors = result.errors.map((e) => ({ message: e.message, path: e.path, extensions: { type: e.message.startsWith('Entity not found') ? 'invalid input' : 'graphql error', code: 'INVALID_INPUT' } }));
      return { status: result.data ? 200 : 400, headers, json: { data: result.data ?? null, errors } };
    }
    return { headers, json: { data: result.data } };
  });
  await fake.start();
  return {
    url: fake.url,
    apiKey,
    oauthToken,
    data,
    calls,
    rateLimitNext(count, seconds, style = 'graphql') {
      limitStyle = style;
      fake.rateLimitNext(count, seconds);
    },
    tick() {
      clock += 60_000;
      return new Date(clock).toISOString();
    },
    close: () => fake.close(),
  };
}
