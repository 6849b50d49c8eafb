import type { SourceAcl, SourceDocument } from '../kit/index.ts';

/** Pure mappings from Linear GraphQL nodes (the fields our queries select) to documents. External ids are Linear's ids. */
interface Named {
  readonly id?: string;
  readonly name?: string | null;
  readonly displayName?: string | null;
}
interface TeamRef {
  readonly id: string;
  readonly key: string;
  readonly name?: string;
}
interface Conn<T> {
  readonly nodes: readonly T[];
}
interface Base {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly archivedAt?: string | null;
}
export interface LinIssue extends Base {
  readonly identifier: string;
  readonly title: string;
  readonly description?: string | null;
  readonly url: string;
  readonly priority: number;
  readonly priorityLabel?: string | null;
  readonly estimate?: number | null;
  readonly dueDate?: string | null;
  readonly completedAt?: string | null;
  readonly creator?: Named | null;
  readonly assignee?: Named | null;
  readonly state?: { name: string; type: string } | null;
  readonly team: TeamRef;
  readonly project?: { id: string; name: string } | null;
  readonly cycle?: { id: string; number: number; name?: string | null } | null;
  readonly labels?: Conn<{ name: string }> | null;
}
export interface LinProject extends Base {
  readonly name: string;
  readonly description?: string | null;
  readonly content?: string | null;
  readonly url: string;
  readonly state?: string | null;
  readonly startDate?: string | null;
  readonly targetDate?: string | null;
  readonly creator?: Named | null;
  readonly lead?: Named | null;
  readonly teams?: Conn<TeamRef> | null;
}
export interface LinCycle extends Base {
  readonly number: number;
  readonly name?: string | null;
  readonly description?: string | null;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly completedAt?: string | null;
  readonly team: TeamRef;
}
export interface LinDocument extends Base {
  readonly title: string;
  readonly content?: string | null;
  readonly url: string;
  readonly creator?: Named | null;
  readonly project?: { id: string; name: string; teams?: Conn<TeamRef> | null } | null;
}
export interface LinComment extends Base {
  readonly body: string;
  readonly url: string;
  readonly user?: Named | null;
  readonly issue?: { id: string; identifier: string; title: string; team: TeamRef } | null;
}
export interface LinAttachment extends Base {
  readonly title: string;
  readonly subtitle?: string | null;
  readonly url: string;
  readonly sourceType?: string | null;
  readonly creator?: Named | null;
  readonly issue?: { id: string; identifier: string; title: string; team: TeamRef } | null;
}
export interface LinMilestone extends Base {
  readonly name: string;
  readonly description?: string | null;
  readonly targetDate?: string | null;
  readonly project?: { id: string; name: string; url: string; teams?: Conn<TeamRef> | null } | null;
}

const who = (u: Named | null | undefined) => u?.name || u?.displayName || undefined;
/** A team's issues, cycles and projects are read by its members (group `linear:team:<team id>`); workspace-wide items by everyone. */
export const teamGroup = (teamId: string) => `linear:team:${teamId}`;
const teamAcl = (teams: readonly TeamRef[]): SourceAcl => ({ groups: [...new Set(teams.map((t) => teamGroup(t.id)))].sort() });
const archived = (b: Base) => (b.archivedAt ? { archived_at: b.archivedAt } : {});

export function issueToDocument(i: LinIssue): SourceDocument {
  return {
    external_id: `issue:${i.id}`,
    title: `${i.identifier}: ${i.title}`,
    content: i.description ?? '',
    url: i.url,
    author: who(i.creator),
    document_type: 'issue',
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    metadata: {
      linear_id: i.id,
      identifier: i.identifier,
      team: i.team.key,
      state: i.state?.name ?? null,
      state_type: i.state?.type ?? null,
      priority: i.priority,
      priority_label: i.priorityLabel ?? null,
      labels: (i.labels?.nodes ?? []).map((l) => l.name),
      assignee: who(i.assignee) ?? null,
      project: i.project?.name ?? null,
      cycle: i.cycle ? i.cycle.number : null,
      estimate: i.estimate ?? null,
      due_date: i.dueDate ?? null,
      completed_at: i.completedAt ?? null,
      ...archived(i),
    },
    acl: teamAcl([i.team]),
  };
}

export function projectToDocument(p: LinProject): SourceDocument {
  const teams = p.teams?.nodes ?? [];
  return {
    external_id: `project:${p.id}`,
    title: p.name,
    content: [p.description ?? '', p.content ?? ''].filter((s) => s.trim()).join('\n\n'),
    url: p.url,
    author: who(p.creator),
    document_type: 'project',
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    metadata: { linear_id: p.id, state: p.state ?? null, lead: who(p.lead) ?? null, start_date: p.startDate ?? null, target_date: p.targetDate ?? null, teams: teams.map((t) => t.key), ...archived(p) },
    acl: teamAcl(teams),
  };
}

/** Linear has no cycle URL field; the app's cycle page is `<workspace>/team/<KEY>/cycle/<number>`. */
export function cycleToDocument(c: LinCycle, workspaceUrl: string): SourceDocument {
  const name = c.name ? `${c.name} (cycle ${c.number})` : `Cycle ${c.number}`;
  return {
    external_id: `cycle:${c.id}`,
    title: `${c.team.key} ${name}`,
    content: [c.description ?? '', `${c.startsAt.slice(0, 10)} → ${c.endsAt.slice(0, 10)}`].filter((s) => s.trim()).join('\n\n'),
    url: `${workspaceUrl.replace(/\/$/, '')}/team/${c.team.key}/cycle/${c.number}`,
    document_type: 'cycle',
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    metadata: { linear_id: c.id, team: c.team.key, number: c.number, starts_at: c.startsAt, ends_at: c.endsAt, completed_at: c.completedAt ?? null, ...archived(c) },
    acl: teamAcl([c.team]),
  };
}

export function documentToDocument(d: LinDocument): SourceDocument {
  const teams = d.project?.teams?.nodes ?? [];
  return {
    external_id: `document:${d.id}`,
    title: d.title,
    content: d.content ?? '',
    url: d.url,
    author: who(d.creator),
    document_type: 'document',
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    metadata: { linear_id: d.id, project: d.project?.name ?? null, ...archived(d) },
    acl: teams.length > 0 ? teamAcl(teams) : { public: true },
  };
}

export function commentToDocument(c: LinComment): SourceDocument {
  return {
    external_id: `comment:${c.id}`,
    title: c.issue ? `Comment on ${c.issue.identifier}: ${c.issue.title}` : 'Comment',
    content: c.body,
    url: c.url,
    author: who(c.user),
    document_type: 'comment',
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    metadata: { linear_id: c.id, issue_id: c.issue?.id ?? null, issue: c.issue?.identifier ?? null, team: c.issue?.team.key ?? null, ...archived(c) },
    acl: c.issue ? teamAcl([c.issue.team]) : { public: true },
  };
}

export function attachmentToDocument(a: LinAttachment): SourceDocument {
  return {
    external_id: `attachment:${a.id}`,
    title: a.issue ? `${a.issue.identifier} attachment: ${a.title}` : a.title,
    content: [a.title, a.subtitle ?? '', a.url].filter((s) => s.trim()).join('\n'),
    url: a.url,
    author: who(a.creator),
    document_type: 'attachment',
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    metadata: { linear_id: a.id, issue: a.issue?.identifier ?? null, source_type: a.sourceType ?? null, subtitle: a.subtitle ?? null, ...archived(a) },
    acl: a.issue ? teamAcl([a.issue.team]) : { public: true },
  };
}

export function milestoneToDocument(m: LinMilestone): SourceDocument {
  const teams = m.project?.teams?.nodes ?? [];
  return {
    external_id: `milestone:${m.id}`,
    title: m.project ? `${m.project.name} — ${m.name}` : m.name,
    content: m.description ?? '',
    url: m.project?.url,
    document_type: 'project_milestone',
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    metadata: { linear_id: m.id, project: m.project?.name ?? null, target_date: m.targetDate ?? null, ...archived(m) },
    acl: teams.length > 0 ? teamAcl(teams) : { public: true },
  };
}

/** The later of two ISO timestamps (either may be null). */
export function laterIso(a: string | null, b: string | null | undefined): string | null {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
