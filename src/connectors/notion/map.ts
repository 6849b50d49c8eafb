import type { SourceDocument } from '../kit/index.ts';
import { type BlockNode, plain, renderBlocks } from './render.ts';

interface UserRef {
  readonly id: string;
  readonly name?: string | null;
}
type Parent = { readonly type: string; readonly [k: string]: unknown };

export interface NotionPage {
  readonly object: 'page';
  readonly id: string;
  readonly url: string;
  readonly created_time: string;
  readonly last_edited_time: string;
  readonly created_by: UserRef;
  readonly last_edited_by: UserRef;
  readonly archived?: boolean;
  readonly in_trash?: boolean;
  readonly parent: Parent;
  readonly properties: Record<string, { type: string; [k: string]: unknown }>;
}
export interface NotionDataSource {
  readonly object: 'data_source';
  readonly id: string;
  readonly url?: string;
  readonly title: unknown;
  readonly description?: unknown;
  readonly created_time: string;
  readonly last_edited_time: string;
  readonly created_by?: UserRef;
  readonly last_edited_by?: UserRef;
  readonly archived?: boolean;
  readonly in_trash?: boolean;
  readonly parent?: Parent;
  readonly database_parent?: Parent;
  readonly properties: Record<string, { type: string; [k: string]: unknown }>;
}
export interface NotionComment {
  readonly id: string;
  readonly discussion_id: string;
  readonly parent: Parent;
  readonly created_time: string;
  readonly last_edited_time: string;
  readonly created_by: UserRef;
  readonly rich_text: unknown;
}

export type Users = Record<string, string>;
const who = (u: UserRef | undefined, users: Users) => (u ? (u.name ?? users[u.id] ?? u.id) : undefined);
export const isGone = (o: { archived?: boolean; in_trash?: boolean }) => Boolean(o.archived || o.in_trash);
export const isRow = (p: NotionPage) => p.parent.type === 'data_source_id' || p.parent.type === 'database_id';
export const laterIso = (a: string | null, b: string) => (a === null || b > a ? b : a);

/** The parent as metadata: `{type, id}` (workspace, page, block, database, data source). */
export function parentInfo(parent: Parent | undefined): { type: string; id?: string } | undefined {
  if (!parent) return undefined;
  const id = parent[parent.type];
  return typeof id === 'string' ? { type: parent.type, id } : { type: parent.type };
}

export function pageTitle(p: NotionPage): string {
  const t = Object.values(p.properties).find((v) => v.type === 'title');
  return plain(t?.title) || 'Untitled';
}

/** One property value as text (database rows' columns). */
export function propertyText(v: { type: string; [k: string]: unknown }, users: Users): string {
  const x = v[v.type] as unknown;
  const named = (o: unknown) => (o && typeof o === 'object' && 'name' in o ? String((o as { name: unknown }).name) : '');
  switch (v.type) {
    case 'title':
    case 'rich_text':
      return plain(x);
    case 'select':
    case 'status':
      return named(x);
    case 'multi_select':
      return Array.isArray(x) ? x.map(named).join(', ') : '';
    case 'people':
      return Array.isArray(x) ? (x as UserRef[]).map((u) => who(u, users) ?? '').join(', ') : '';
    case 'date': {
      const d = x as { start?: string; end?: string | null } | null;
      return d?.start ? (d.end ? `${d.start} → ${d.end}` : d.start) : '';
    }
    case 'checkbox':
      return x ? 'yes' : 'no';
    case 'relation':
      return Array.isArray(x) ? (x as { id: string }[]).map((r) => r.id).join(', ') : '';
    case 'formula': {
      const f = x as { type?: string; [k: string]: unknown } | null;
      const val = f?.type ? f[f.type] : null;
      return val === null || val === undefined ? '' : typeof val === 'object' ? String((val as { start?: string }).start ?? '') : String(val);
    }
    case 'unique_id': {
      const u = x as { prefix?: string | null; number?: number | null } | null;
      return u?.number === null || u?.number === undefined ? '' : `${u.prefix ? `${u.prefix}-` : ''}${u.number}`;
    }
    case 'created_by':
    case 'last_edited_by':
      return who(x as UserRef, users) ?? '';
    default:
      return x === null || x === undefined || typeof x === 'object' ? '' : String(x);
  }
}

export function pageToDocument(p: NotionPage, blocks: readonly BlockNode[], users: Users): SourceDocument {
  const row = isRow(p);
  const props = Object.entries(p.properties)
    .filter(([, v]) => v.type !== 'title')
    .map(([k, v]) => [k, propertyText(v, users)] as const)
    .filter(([, t]) => t !== '');
  const content = [...(row ? props.map(([k, t]) => `${k}: ${t}`) : []), renderBlocks(blocks)].filter(Boolean).join('\n');
  return {
    external_id: `page:${p.id}`,
    title: pageTitle(p),
    content,
    url: p.url,
    author: who(p.created_by, users),
    document_type: row ? 'database_row' : 'page',
    created_at: p.created_time,
    updated_at: p.last_edited_time,
    metadata: {
      notion_id: p.id,
      object: 'page',
      parent: parentInfo(p.parent),
      created_by: p.created_by.id,
      last_edited_by: p.last_edited_by.id,
      last_edited_by_name: who(p.last_edited_by, users),
      ...(row ? { properties: Object.fromEntries(props) } : {}),
      ...(isGone(p) ? { archived: true } : {}),
    },
  };
}

export function dataSourceToDocument(d: NotionDataSource, users: Users): SourceDocument {
  const title = plain(d.title) || 'Untitled database';
  const columns = Object.entries(d.properties).map(([name, v]) => `${name} (${v.type})`);
  return {
    external_id: `database:${d.id}`,
    title,
    content: [plain(d.description), columns.length > 0 ? `Columns: ${columns.join(', ')}` : ''].filter(Boolean).join('\n') || title,
    url: d.url,
    author: who(d.created_by, users),
    document_type: 'database',
    created_at: d.created_time,
    updated_at: d.last_edited_time,
    metadata: { notion_id: d.id, object: 'data_source', parent: parentInfo(d.parent), database_parent: parentInfo(d.database_parent), created_by: d.created_by?.id, last_edited_by: d.last_edited_by?.id },
  };
}

export function commentToDocument(c: NotionComment, page: NotionPage, users: Users): SourceDocument {
  return {
    external_id: `comment:${c.id}`,
    title: `Comment on ${pageTitle(page)}`,
    content: plain(c.rich_text),
    url: `${page.url}?d=${c.discussion_id.replace(/-/g, '')}`,
    author: who(c.created_by, users),
    document_type: 'comment',
    created_at: c.created_time,
    updated_at: c.last_edited_time,
    metadata: {
      notion_id: c.id,
      object: 'comment',
      discussion_id: c.discussion_id,
      page_id: page.id,
      parent: parentInfo(c.parent),
      // An inline discussion on a block (not the page's own discussion).
      ...(c.parent.type === 'block_id' ? { block_id: c.parent.block_id } : {}),
      created_by: c.created_by.id,
    },
  };
}
