import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';

/**
 * A field as `sysparm_display_value=all` answers it: the stored value (dates in UTC `YYYY-MM-DD HH:mm:ss`, references
 * as sys_ids) and the display value (names, labels). Absent fields read as empty.
 */
const field = z
  .object({ value: z.union([z.string(), z.number(), z.boolean()]).nullable().optional(), display_value: z.union([z.string(), z.number(), z.boolean()]).nullable().optional() })
  .nullable()
  .optional()
  .transform((f) => ({ value: f?.value === null || f?.value === undefined ? '' : String(f.value), display: f?.display_value === null || f?.display_value === undefined ? '' : String(f.display_value) }));

export const kbArticle = z.object({
  sys_id: field,
  number: field,
  short_description: field,
  text: field,
  wiki: field,
  article_type: field,
  workflow_state: field,
  kb_knowledge_base: field,
  kb_category: field,
  author: field,
  can_read_user_criteria: field,
  cannot_read_user_criteria: field,
  valid_to: field,
  sys_created_on: field,
  sys_updated_on: field,
});
export type KbArticle = z.infer<typeof kbArticle>;
export const KB_FIELDS = Object.keys(kbArticle.shape).join(',');

export const incident = z.object({
  sys_id: field,
  number: field,
  short_description: field,
  description: field,
  state: field,
  priority: field,
  category: field,
  caller_id: field,
  assigned_to: field,
  assignment_group: field,
  close_notes: field,
  opened_at: field,
  sys_created_on: field,
  sys_updated_on: field,
});
export type Incident = z.infer<typeof incident>;
export const INCIDENT_FIELDS = Object.keys(incident.shape).join(',');

export const journalEntry = z.object({
  element_id: z.string(),
  element: z.string(),
  value: z.string().nullable().optional(),
  sys_created_on: z.string(),
  sys_created_by: z.string().nullable().optional(),
});
export type JournalEntry = z.infer<typeof journalEntry>;

export const kbExternalId = (sysId: string): string => `kb_knowledge:${sysId}`;
export const incidentExternalId = (sysId: string): string => `incident:${sysId}`;
/** Readers of a knowledge base whose read user criteria are not resolved here. */
export const kbGroup = (kbSysId: string): string => `servicenow:kb:${kbSysId}`;
export const criteriaGroup = (criteriaSysId: string): string => `servicenow:user_criteria:${criteriaSysId}`;
/** Incidents are for the service desk (the itil role): one group, documented. */
export const INCIDENTS_GROUP = 'servicenow:incidents';

/** A stored ServiceNow datetime (UTC `YYYY-MM-DD HH:mm:ss`) as ISO 8601. */
export function isoOf(value: string): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(value.trim());
  return m ? `${m[1]}T${m[2]}.000Z` : undefined;
}
const when = (value: string): string => `${value.slice(0, 16)} UTC`;
const userRef = (sysId: string): string | undefined => (sysId ? `servicenow:user:${sysId}` : undefined);

/**
 * Who may read an article: its own "Can read" user criteria when set; else its knowledge base's group when the base has
 * "Can read" or "Cannot read" criteria, the article has "Cannot read" criteria (an exclusion the shared ACL shape cannot
 * express), or the base's criteria could not be read; else anyone in the tenant (a base without criteria is readable
 * by all users).
 */
export function kbAcl(a: KbArticle, restrictedKbs: ReadonlySet<string> | null): SourceAcl {
  const list = (f: { value: string }) => f.value.split(',').map((s) => s.trim()).filter(Boolean);
  const criteria = list(a.can_read_user_criteria);
  if (criteria.length) return { groups: criteria.map(criteriaGroup) };
  const kb = a.kb_knowledge_base.value;
  if (restrictedKbs === null || restrictedKbs.has(kb) || list(a.cannot_read_user_criteria).length) return { groups: [kbGroup(kb)] };
  return { public: true };
}

export function kbToDocument(a: KbArticle, opts: { instanceUrl: string; restrictedKbs: ReadonlySet<string> | null }): SourceDocument {
  const html = a.article_type.value === 'wiki' ? a.wiki.value : a.text.value;
  const created = isoOf(a.sys_created_on.value);
  const updated = isoOf(a.sys_updated_on.value);
  const author = userRef(a.author.value);
  return {
    external_id: kbExternalId(a.sys_id.value),
    title: a.short_description.value.trim() || a.number.value,
    content: html ? parseHtml(html).content : '',
    url: `${opts.instanceUrl}/kb_view.do?sysparm_article=${encodeURIComponent(a.number.value)}`,
    ...(author ? { author } : {}),
    document_type: 'knowledge_article',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      servicenow_sys_id: a.sys_id.value,
      number: a.number.value,
      knowledge_base: a.kb_knowledge_base.display || null,
      knowledge_base_sys_id: a.kb_knowledge_base.value || null,
      category: a.kb_category.display || null,
      author: a.author.display || null,
      workflow_state: a.workflow_state.value,
      valid_to: a.valid_to.value || null,
    },
    acl: kbAcl(a, opts.restrictedKbs),
  };
}

/**
 * An incident as text: a header (number, state, priority, category, caller, assignment), the description and close
 * notes, then its journal oldest first; work notes are internal and marked as such, additional comments are what the
 * caller sees.
 */
export function incidentToDocument(i: Incident, journal: readonly JournalEntry[], opts: { instanceUrl: string }): SourceDocument {
  const header = [
    `Number: ${i.number.value}`,
    `State: ${i.state.display || i.state.value}`,
    i.priority.display ? `Priority: ${i.priority.display}` : '',
    i.category.display ? `Category: ${i.category.display}` : '',
    i.caller_id.display ? `Caller: ${i.caller_id.display}` : '',
    `Assigned to: ${i.assigned_to.display || 'Unassigned'}`,
    i.assignment_group.display ? `Assignment group: ${i.assignment_group.display}` : '',
  ].filter(Boolean);
  const entries = [...journal]
    .sort((a, b) => a.sys_created_on.localeCompare(b.sys_created_on))
    .map((j) => `${j.sys_created_by || 'unknown'} — ${when(j.sys_created_on)}${j.element === 'work_notes' ? ' (work note, internal)' : ' (comment)'}\n${(j.value ?? '').trim()}`);
  const workNotes = journal.filter((j) => j.element === 'work_notes').length;
  const created = isoOf(i.opened_at.value) ?? isoOf(i.sys_created_on.value);
  const updated = isoOf(i.sys_updated_on.value);
  const author = userRef(i.caller_id.value);
  return {
    external_id: incidentExternalId(i.sys_id.value),
    title: `${i.number.value} ${i.short_description.value}`.trim(),
    content: [header.join('\n'), i.description.value.trim(), i.close_notes.value.trim() ? `Close notes: ${i.close_notes.value.trim()}` : '', ...entries].filter(Boolean).join('\n\n'),
    url: `${opts.instanceUrl}/incident.do?sys_id=${encodeURIComponent(i.sys_id.value)}`,
    ...(author ? { author } : {}),
    document_type: 'incident',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      servicenow_sys_id: i.sys_id.value,
      number: i.number.value,
      state: i.state.display || i.state.value,
      priority: i.priority.display || null,
      category: i.category.display || null,
      caller: i.caller_id.display || null,
      assigned_to: i.assigned_to.display || null,
      assignment_group: i.assignment_group.display || null,
      comment_count: journal.length - workNotes,
      // Work notes are internal (the itil readers see them; so does everyone this document is visible to).
      work_note_count: workNotes,
    },
    acl: { groups: [INCIDENTS_GROUP] },
  };
}
