import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

const user = z.object({ gid: z.string(), name: z.string().nullable().optional(), email: z.string().nullable().optional() });
type AsanaUser = z.infer<typeof user>;
const named = z.object({ gid: z.string(), name: z.string().nullable().optional() });

export const asanaProject = z.object({
  gid: z.string(),
  name: z.string().nullable().optional(),
  notes: z.string().nullable().optional(),
  archived: z.boolean().optional(),
  /** `public_to_workspace`, `private_to_team` or `private`; older answers carry only the deprecated `public`. */
  privacy_setting: z.string().nullable().optional(),
  public: z.boolean().nullable().optional(),
  team: named.nullable().optional(),
  owner: user.nullable().optional(),
  workspace: named.nullable().optional(),
  created_at: z.string().nullable().optional(),
  modified_at: z.string().nullable().optional(),
  permalink_url: z.string().nullable().optional(),
});
export type AsanaProject = z.infer<typeof asanaProject>;

export const asanaTask = z.object({
  gid: z.string(),
  name: z.string().nullable().optional(),
  notes: z.string().nullable().optional(),
  resource_subtype: z.string().nullable().optional(),
  completed: z.boolean().optional(),
  completed_at: z.string().nullable().optional(),
  created_at: z.string().nullable().optional(),
  modified_at: z.string().nullable().optional(),
  due_on: z.string().nullable().optional(),
  due_at: z.string().nullable().optional(),
  assignee: user.nullable().optional(),
  created_by: user.nullable().optional(),
  memberships: z.array(z.object({ project: named.nullable().optional(), section: named.nullable().optional() })).nullable().optional(),
  tags: z.array(named).nullable().optional(),
  permalink_url: z.string().nullable().optional(),
});
export type AsanaTask = z.infer<typeof asanaTask>;

export const asanaStory = z.object({
  gid: z.string(),
  type: z.string().nullable().optional(),
  resource_subtype: z.string().nullable().optional(),
  text: z.string().nullable().optional(),
  created_at: z.string().nullable().optional(),
  created_by: user.nullable().optional(),
});
export type AsanaStory = z.infer<typeof asanaStory>;

/** The opt_fields each list asks for (Asana answers compact records otherwise). */
export const PROJECT_FIELDS = 'name,notes,archived,privacy_setting,public,team.name,owner.name,owner.email,workspace.name,created_at,modified_at,permalink_url';
export const TASK_FIELDS =
  'name,notes,resource_subtype,completed,completed_at,created_at,modified_at,due_on,due_at,assignee.name,assignee.email,created_by.name,created_by.email,memberships.project.name,memberships.section.name,tags.name,permalink_url';
export const STORY_FIELDS = 'type,resource_subtype,text,created_at,created_by.name,created_by.email';

export const projectExternalId = (gid: string) => `project:${gid}`;
export const taskExternalId = (gid: string) => `task:${gid}`;

/** A person as the shared ACL/author shape wants it: lower-cased email, else `asana:<user gid>`. */
export const asanaPerson = (u: AsanaUser | null | undefined): string | undefined => (u ? (u.email ? u.email.toLowerCase() : `asana:${u.gid}`) : undefined);
const personName = (u: AsanaUser | null | undefined): string => u?.name || u?.email || (u ? `user ${u.gid}` : 'Unknown');

const iso = (s: string | null | undefined): string | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};
const when = (s: string | null | undefined): string => (iso(s) ?? String(s ?? '')).slice(0, 16).replace('T', ' ') + ' UTC';

/**
 * Who may read a project (and its tasks): public to the workspace → everyone; private to its team → the team and the
 * project's members; private → the project's members only. The deprecated `public` flag decides when
 * `privacy_setting` is absent.
 */
export function projectAcl(p: Pick<AsanaProject, 'gid' | 'privacy_setting' | 'public' | 'team'>): SourceAcl {
  const setting = p.privacy_setting ?? (p.public === true ? 'public_to_workspace' : p.public === false ? 'private' : 'public_to_workspace');
  if (setting === 'public_to_workspace' || setting === 'public') return { public: true };
  const groups = [`asana:project:${p.gid}`];
  if (setting === 'private_to_team' && p.team?.gid) groups.push(`asana:team:${p.team.gid}`);
  return { groups };
}

/** A task readable through several projects: public if any of them is, else the union of their groups. */
export function mergeAcls(acls: readonly SourceAcl[]): SourceAcl {
  if (acls.length === 0) return {};
  if (acls.some((a) => a.public)) return { public: true };
  return { groups: [...new Set(acls.flatMap((a) => a.groups ?? []))].sort() };
}

export function projectToDocument(p: AsanaProject): SourceDocument {
  const header = [
    `Project: ${p.name ?? p.gid}`,
    p.workspace?.name ? `Workspace: ${p.workspace.name}` : '',
    p.team?.name ? `Team: ${p.team.name}` : '',
    p.owner ? `Owner: ${personName(p.owner)}` : '',
    p.archived ? 'Archived: yes' : '',
  ].filter(Boolean);
  return {
    external_id: projectExternalId(p.gid),
    title: p.name?.trim() || `Project ${p.gid}`,
    content: [header.join('\n'), p.notes?.trim() ?? ''].filter(Boolean).join('\n\n'),
    url: p.permalink_url ?? `https://app.asana.com/0/${p.gid}/list`,
    author: asanaPerson(p.owner),
    document_type: 'project',
    created_at: iso(p.created_at),
    updated_at: iso(p.modified_at),
    metadata: {
      asana_gid: p.gid,
      workspace_gid: p.workspace?.gid ?? null,
      team_gid: p.team?.gid ?? null,
      privacy_setting: p.privacy_setting ?? null,
      archived: p.archived ?? false,
    },
    acl: projectAcl(p),
  };
}

/**
 * A task as text: a header (project/section, status, assignee, due date, tags), its description, then its comments
 * in order under their authors' names. Only stories of type `comment` are kept (system stories are activity noise).
 */
export function taskToDocument(t: AsanaTask, stories: readonly AsanaStory[], acl: SourceAcl): SourceDocument {
  const places = (t.memberships ?? []).map((m) => [m.project?.name, m.section?.name].filter(Boolean).join(' / ')).filter(Boolean);
  const comments = stories.filter((s) => s.type === 'comment' || s.resource_subtype === 'comment_added');
  const header = [
    places.length ? `Project: ${places.join('; ')}` : '',
    `Status: ${t.completed ? `completed${t.completed_at ? ` ${when(t.completed_at)}` : ''}` : 'open'}`,
    `Assignee: ${t.assignee ? personName(t.assignee) : 'Unassigned'}`,
    t.due_at || t.due_on ? `Due: ${t.due_at ? when(t.due_at) : t.due_on}` : '',
    t.tags?.length ? `Tags: ${t.tags.map((x) => x.name ?? x.gid).join(', ')}` : '',
  ].filter(Boolean);
  const conversation = comments.map((c) => `${personName(c.created_by)} — ${when(c.created_at)}\n${(c.text ?? '').trim()}`);
  return {
    external_id: taskExternalId(t.gid),
    title: t.name?.trim() || `Task ${t.gid}`,
    content: [header.join('\n'), t.notes?.trim() ?? '', ...conversation].filter(Boolean).join('\n\n'),
    url: t.permalink_url ?? `https://app.asana.com/0/0/${t.gid}`,
    author: asanaPerson(t.created_by),
    document_type: t.resource_subtype === 'milestone' ? 'milestone' : 'task',
    created_at: iso(t.created_at),
    updated_at: iso(t.modified_at),
    metadata: {
      asana_gid: t.gid,
      project_gids: (t.memberships ?? []).map((m) => m.project?.gid).filter(Boolean),
      completed: t.completed ?? false,
      assignee: t.assignee ? personName(t.assignee) : null,
      assignee_id: asanaPerson(t.assignee) ?? null,
      due_on: t.due_on ?? null,
      tags: (t.tags ?? []).map((x) => x.name ?? x.gid),
      comment_count: comments.length,
    },
    acl,
  };
}
