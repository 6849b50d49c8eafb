import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

export const airtableBase = z.object({ id: z.string(), name: z.string(), permissionLevel: z.string().optional() });
export type AirtableBase = z.infer<typeof airtableBase>;

export const airtableField = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  description: z.string().nullable().optional(),
  options: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type AirtableField = z.infer<typeof airtableField>;

export const airtableTable = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
  primaryFieldId: z.string(),
  fields: z.array(airtableField),
});
export type AirtableTable = z.infer<typeof airtableTable>;

export const airtableRecord = z.object({ id: z.string(), createdTime: z.string(), fields: z.record(z.string(), z.unknown()) });
export type AirtableRecord = z.infer<typeof airtableRecord>;

/** What a sync keeps of a table between pages (checkpointed): enough to render its records. */
export interface TableShape {
  id: string;
  name: string;
  primaryFieldId: string;
  fields: { id: string; name: string; type: string; symbol?: string }[];
}

export const baseExternalId = (baseId: string) => `base:${baseId}`;
export const tableExternalId = (baseId: string, tableId: string) => `table:${baseId}:${tableId}`;
export const recordExternalId = (baseId: string, tableId: string, recordId: string) => `record:${baseId}:${tableId}:${recordId}`;

/** Everyone the base is shared with may read it: Airtable's API does not list a base's collaborators for non-enterprise tokens. */
export const baseAcl = (baseId: string): SourceAcl => ({ groups: [`airtable:base:${baseId}`] });

const AIRTABLE_APP = 'https://airtable.com';

export function tableShape(t: AirtableTable): TableShape {
  return {
    id: t.id,
    name: t.name,
    primaryFieldId: t.primaryFieldId,
    fields: t.fields.map((f) => {
      const symbol = typeof f.options?.symbol === 'string' ? f.options.symbol : undefined;
      return { id: f.id, name: f.name, type: f.type, ...(symbol ? { symbol } : {}) };
    }),
  };
}

const iso = (s: string): string | undefined => {
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One non-array cell value as text: collaborators by name (email), attachments by file name, buttons by label, AI text by value. */
function scalarText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (isObject(v)) {
    // A formula or lookup that failed: `{error: '#ERROR!'}` / `{specialValue: 'NaN'}`.
    if (typeof v.error === 'string' || typeof v.specialValue === 'string') return '';
    if (typeof v.name === 'string' && typeof v.email === 'string') return `${v.name} (${v.email})`;
    if (typeof v.filename === 'string') return v.filename;
    if (typeof v.label === 'string') return v.label;
    if (typeof v.text === 'string') return v.text;
    if (typeof v.value === 'string') return v.value;
    if (typeof v.name === 'string') return v.name;
    if (typeof v.email === 'string') return v.email;
  }
  return '';
}

/** A cell as readable text, by the field's type (never JSON). */
export function cellText(value: unknown, field?: Pick<TableShape['fields'][number], 'type' | 'symbol'>): string {
  if (Array.isArray(value)) return value.map((x) => cellText(x, field)).filter(Boolean).join(', ');
  if (typeof value === 'number' && field) {
    if (field.type === 'percent') return `${Math.round(value * 10_000) / 100}%`;
    if (field.type === 'currency') return `${field.symbol ?? ''}${value}`;
    if (field.type === 'rating') return `${value}/5`;
    if (field.type === 'duration') {
      const h = Math.floor(value / 3600);
      const m = Math.floor((value % 3600) / 60);
      return `${h}:${String(m).padStart(2, '0')}`;
    }
  }
  if (typeof value === 'boolean' && field?.type === 'checkbox') return value ? 'Yes' : 'No';
  return scalarText(value).trim();
}

/** `Field: value` lines in the table's field order; a multi-line value goes under its field name. */
function fieldLines(r: AirtableRecord, table: TableShape): string[] {
  const known = new Set(table.fields.map((f) => f.name));
  const ordered = [...table.fields, ...Object.keys(r.fields).filter((k) => !known.has(k)).map((name) => ({ id: name, name, type: 'unknown' }))];
  const lines: string[] = [];
  for (const f of ordered) {
    const text = cellText(r.fields[f.name], f);
    if (!text) continue;
    lines.push(text.includes('\n') ? `${f.name}:\n${text}` : `${f.name}: ${text}`);
  }
  return lines;
}

/** The record's author: a `createdBy` field's collaborator (lower-cased email, else `airtable:<user id>`). */
function authorOf(r: AirtableRecord, table: TableShape): string | undefined {
  const f = table.fields.find((x) => x.type === 'createdBy');
  const v = f ? r.fields[f.name] : undefined;
  if (!isObject(v)) return undefined;
  if (typeof v.email === 'string' && v.email) return v.email.toLowerCase();
  return typeof v.id === 'string' ? `airtable:${v.id}` : undefined;
}

/** The record's last change: a `lastModifiedTime` field's value when the table has one (records carry no such time). */
function modifiedOf(r: AirtableRecord, table: TableShape): string | undefined {
  const f = table.fields.find((x) => x.type === 'lastModifiedTime');
  const v = f ? r.fields[f.name] : undefined;
  return typeof v === 'string' ? iso(v) : undefined;
}

/** A record as text: its table and base, then every non-empty field as `Name: value`. Title: the primary field. */
export function recordToDocument(r: AirtableRecord, table: TableShape, base: { id: string; name: string }): SourceDocument {
  const primary = table.fields.find((f) => f.id === table.primaryFieldId);
  const title = primary ? cellText(r.fields[primary.name], primary).split('\n')[0]?.slice(0, 200) : '';
  const created = iso(r.createdTime);
  const updated = modifiedOf(r, table);
  return {
    external_id: recordExternalId(base.id, table.id, r.id),
    title: title || `${table.name} ${r.id}`,
    content: [`${table.name} record in ${base.name}`, ...fieldLines(r, table)].join('\n'),
    url: `${AIRTABLE_APP}/${base.id}/${table.id}/${r.id}`,
    author: authorOf(r, table),
    document_type: 'record',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: { base_id: base.id, base_name: base.name, table_id: table.id, table_name: table.name, record_id: r.id },
    acl: baseAcl(base.id),
  };
}

/** A table's schema as text: its description and fields (name, type, description), so "which table holds X" is searchable. */
export function tableToDocument(t: AirtableTable, base: { id: string; name: string }): SourceDocument {
  const fields = t.fields.map((f) => `- ${f.name} (${f.type})${f.id === t.primaryFieldId ? ' [primary]' : ''}${f.description ? `: ${f.description}` : ''}`);
  return {
    external_id: tableExternalId(base.id, t.id),
    title: `${t.name} (${base.name})`,
    content: [`Table ${t.name} in base ${base.name}`, t.description ?? '', `Fields:\n${fields.join('\n')}`].filter((s) => s.trim()).join('\n\n'),
    url: `${AIRTABLE_APP}/${base.id}/${t.id}`,
    document_type: 'table',
    metadata: { base_id: base.id, base_name: base.name, table_id: t.id, field_count: t.fields.length },
    acl: baseAcl(base.id),
  };
}

export function baseToDocument(b: AirtableBase, tables: readonly AirtableTable[]): SourceDocument {
  return {
    external_id: baseExternalId(b.id),
    title: b.name,
    content: [`Airtable base ${b.name}`, `Tables:\n${tables.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ''}`).join('\n')}`].join('\n\n'),
    url: `${AIRTABLE_APP}/${b.id}`,
    document_type: 'base',
    metadata: { base_id: b.id, permission_level: b.permissionLevel ?? null, table_ids: tables.map((t) => t.id) },
    acl: baseAcl(b.id),
  };
}
