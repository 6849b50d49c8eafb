import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

const person = z.object({ name: z.string().optional(), email: z.string().optional() }).passthrough();

export const codaDoc = z.object({
  id: z.string(),
  name: z.string(),
  browserLink: z.string(),
  owner: z.string().optional(),
  ownerName: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  workspace: z.object({ id: z.string(), name: z.string().optional() }).optional(),
  folder: z.object({ id: z.string(), name: z.string().optional() }).optional(),
});
export type CodaDoc = z.infer<typeof codaDoc>;

export const codaPage = z.object({
  id: z.string(),
  name: z.string(),
  subtitle: z.string().nullable().optional(),
  browserLink: z.string(),
  contentType: z.string(),
  isHidden: z.boolean().optional(),
  parent: z.object({ id: z.string(), name: z.string().optional() }).nullable().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  createdBy: person.nullable().optional(),
  updatedBy: person.nullable().optional(),
});
export type CodaPage = z.infer<typeof codaPage>;

export const codaTable = z.object({ id: z.string(), name: z.string(), tableType: z.string().optional(), browserLink: z.string().optional() });
export type CodaTable = z.infer<typeof codaTable>;

export const codaRow = z.object({
  id: z.string(),
  name: z.string().optional(),
  index: z.number().optional(),
  browserLink: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  values: z.record(z.string(), z.unknown()),
});
export type CodaRow = z.infer<typeof codaRow>;

/** What a sync keeps of a doc between pages (checkpointed). */
export interface DocRef {
  id: string;
  name: string;
  browserLink: string;
  owner: string | null;
  ownerName: string | null;
  workspaceId: string | null;
  folderName: string | null;
  createdAt: string;
  updatedAt: string;
}

export const docRef = (d: CodaDoc): DocRef => ({
  id: d.id,
  name: d.name,
  browserLink: d.browserLink,
  owner: d.owner ?? null,
  ownerName: d.ownerName ?? null,
  workspaceId: d.workspace?.id ?? null,
  folderName: d.folder?.name ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export const docExternalId = (docId: string) => `doc:${docId}`;
export const pageExternalId = (docId: string, pageId: string) => `page:${docId}:${pageId}`;
export const rowExternalId = (docId: string, tableId: string, rowId: string) => `row:${docId}:${tableId}:${rowId}`;

/**
 * Who may read a doc's content: its owner, and everyone it is shared with (`coda:doc:<id>`, not resolved to people: the
 * doc's sharing list is not read). Docs shared with their workspace are not told apart from privately shared ones.
 */
export function docAcl(d: Pick<DocRef, 'id' | 'owner'>): SourceAcl {
  return { ...(d.owner ? { users: [d.owner.toLowerCase()] } : {}), groups: [`coda:doc:${d.id}`] };
}

const iso = (s: string | undefined | null): string | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

const lower = (s: string | undefined | null) => (s ? s.toLowerCase() : undefined);

/** A cell of `valueFormat=simple` as text: scalars as they are, lists joined, anything else by its name or text. */
export function codaValueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (Array.isArray(v)) return v.map(codaValueText).filter(Boolean).join(', ');
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of ['name', 'text', 'url', 'email']) if (typeof o[k] === 'string') return (o[k] as string).trim();
  }
  return '';
}

/** Markdown from Coda's export, tidied: no trailing spaces, at most one blank line in a row. */
export function tidyMarkdown(md: string): string {
  return md
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function pageToDocument(p: CodaPage, doc: DocRef, markdown: string): SourceDocument {
  const header = [p.subtitle?.trim() ?? '', p.parent?.name ? `In ${doc.name} › ${p.parent.name}` : `In ${doc.name}`].filter(Boolean);
  const created = iso(p.createdAt);
  const updated = iso(p.updatedAt);
  return {
    external_id: pageExternalId(doc.id, p.id),
    title: p.name.trim() || 'Untitled page',
    content: [...header, tidyMarkdown(markdown)].filter(Boolean).join('\n\n'),
    url: p.browserLink,
    author: lower(p.createdBy?.email) ?? lower(doc.owner),
    document_type: 'page',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      doc_id: doc.id,
      doc_name: doc.name,
      page_id: p.id,
      parent_page_id: p.parent?.id ?? null,
      updated_at: p.updatedAt ?? null,
      updated_by: lower(p.updatedBy?.email) ?? null,
    },
    acl: docAcl(doc),
  };
}

/** A row as text: `<Table> row in <Doc>`, then `Column: value` for every non-empty column. Title: the display column. */
export function rowToDocument(r: CodaRow, table: Pick<CodaTable, 'id' | 'name'>, doc: DocRef): SourceDocument {
  const lines = Object.entries(r.values)
    .map(([column, value]) => [column, codaValueText(value)] as const)
    .filter(([, text]) => text)
    .map(([column, text]) => (text.includes('\n') ? `${column}:\n${text}` : `${column}: ${text}`));
  return {
    external_id: rowExternalId(doc.id, table.id, r.id),
    title: r.name?.trim() || `${table.name} row ${r.index ?? r.id}`,
    content: [`${table.name} row in ${doc.name}`, ...lines].join('\n'),
    url: r.browserLink,
    author: lower(doc.owner),
    document_type: 'row',
    created_at: iso(r.createdAt) ?? r.createdAt,
    updated_at: iso(r.updatedAt) ?? r.updatedAt,
    metadata: { doc_id: doc.id, doc_name: doc.name, table_id: table.id, table_name: table.name, row_id: r.id, updated_at: r.updatedAt },
    acl: docAcl(doc),
  };
}

/**
 * The doc itself: name, owner, folder, its pages and tables. Its `metadata.updated_at` is the doc's `updatedAt`, which
 * an incremental sync compares to skip docs that did not change; it is stored after the doc's pages and rows, and left
 * null when a page could not be exported this time (so the next incremental sync reads the doc again).
 */
export function docToDocument(doc: DocRef, pages: readonly string[], tables: readonly string[], complete = true): SourceDocument {
  const lines = [
    `Coda doc ${doc.name}`,
    doc.ownerName || doc.owner ? `Owner: ${[doc.ownerName, doc.owner ? `(${doc.owner})` : ''].filter(Boolean).join(' ')}` : '',
    doc.folderName ? `Folder: ${doc.folderName}` : '',
  ].filter(Boolean);
  const created = iso(doc.createdAt);
  const updated = iso(doc.updatedAt);
  return {
    external_id: docExternalId(doc.id),
    title: doc.name,
    content: [lines.join('\n'), pages.length ? `Pages:\n${pages.map((p) => `- ${p}`).join('\n')}` : '', tables.length ? `Tables:\n${tables.map((t) => `- ${t}`).join('\n')}` : '']
      .filter(Boolean)
      .join('\n\n'),
    url: doc.browserLink,
    author: lower(doc.owner),
    document_type: 'doc',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: { doc_id: doc.id, updated_at: complete ? doc.updatedAt : null, workspace_id: doc.workspaceId, folder: doc.folderName, owner_name: doc.ownerName },
    acl: docAcl(doc),
  };
}
