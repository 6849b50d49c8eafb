import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

export const gitbookOrg = z.object({ id: z.string(), title: z.string() });

export const gitbookSpace = z.object({
  id: z.string(),
  title: z.string(),
  visibility: z.string(),
  revision: z.string(),
  organization: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  deletedAt: z.string().nullish(),
  urls: z.object({ app: z.string(), published: z.string().optional() }),
});

/** What the sync keeps of a space while it reads its pages. */
export const spaceRef = z.object({
  id: z.string(),
  title: z.string(),
  visibility: z.string(),
  revision: z.string(),
  org: z.string(),
  orgTitle: z.string().nullable(),
  url: z.string(),
  updatedAt: z.string().nullable(),
});
export type SpaceRef = z.infer<typeof spaceRef>;

/** A page of the revision's tree (`pages`): documents and groups nest pages; links point elsewhere. */
export interface TreePage {
  id: string;
  title: string;
  type: string;
  path?: string | undefined;
  hidden?: boolean | undefined;
  createdAt?: string | undefined;
  updatedAt?: string | undefined;
  urls?: { app?: string | undefined } | undefined;
  pages?: TreePage[] | undefined;
}
export const treePage: z.ZodType<TreePage> = z.lazy(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    type: z.string(),
    path: z.string().optional(),
    hidden: z.boolean().optional(),
    createdAt: z.string().optional(),
    updatedAt: z.string().optional(),
    urls: z.object({ app: z.string().optional() }).optional(),
    pages: z.array(treePage).optional(),
  }),
);
export const revision = z.object({ id: z.string(), pages: z.array(treePage) });

/** A document page to read: where it sits (its groups' and parents' titles) and what an incremental sync compares. */
export const pageRef = z.object({
  id: z.string(),
  title: z.string(),
  path: z.string(),
  trail: z.array(z.string()),
  url: z.string().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type PageRef = z.infer<typeof pageRef>;

/** Every document page of the tree, depth first, with its trail of group and parent titles. */
export function documentPages(pages: readonly TreePage[], includeHidden: boolean, trail: string[] = []): PageRef[] {
  const out: PageRef[] = [];
  for (const p of pages) {
    if (p.hidden && !includeHidden) continue;
    if (p.type === 'document') {
      out.push({ id: p.id, title: p.title, path: p.path ?? p.id, trail, url: p.urls?.app ?? null, createdAt: p.createdAt ?? null, updatedAt: p.updatedAt ?? null });
    }
    if (p.pages?.length && p.type !== 'link') out.push(...documentPages(p.pages, includeHidden, [...trail, p.title]));
  }
  return out;
}

/** `GET …/content/page/{id}`: with `format=markdown` the page carries `markdown`, else a JSON `document`. */
export const pageContent = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().optional(),
  markdown: z.string().optional(),
  document: z.unknown().optional(),
});
export type PageContent = z.infer<typeof pageContent>;

/** Text of a GitBook JSON document: leaves' text, one line per block. */
export function documentText(node: unknown): string {
  const lines: string[] = [];
  const walk = (n: unknown, line: string[]): void => {
    if (!n || typeof n !== 'object') return;
    const o = n as { object?: string; leaves?: { text?: string }[]; nodes?: unknown[] };
    if (o.object === 'text') {
      line.push((o.leaves ?? []).map((l) => l.text ?? '').join(''));
      return;
    }
    if (o.object === 'block') {
      const own: string[] = [];
      for (const c of o.nodes ?? []) walk(c, own);
      const text = own.join('').trim();
      if (text) lines.push(text);
      return;
    }
    for (const c of o.nodes ?? []) walk(c, line);
  };
  const top: string[] = [];
  walk(node, top);
  if (top.join('').trim()) lines.unshift(top.join('').trim());
  return lines.join('\n');
}

/** Markdown tidied: no trailing spaces, at most one blank line in a row. */
export function tidy(md: string): string {
  return md
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export const spaceExternalId = (id: string) => `space:${id}`;
export const pageExternalId = (space: string, page: string) => `page:${space}:${page}`;

/** Public spaces are readable by anyone; every other visibility by the space's members (`gitbook:space:<id>`). */
export function spaceAcl(s: Pick<SpaceRef, 'id' | 'visibility'>): SourceAcl {
  return s.visibility === 'public' ? { public: true } : { groups: [`gitbook:space:${s.id}`] };
}

const iso = (s: string | null | undefined): string | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

export function pageToDocument(space: SpaceRef, ref: PageRef, content: PageContent): SourceDocument {
  const body = content.markdown !== undefined ? tidy(content.markdown) : documentText(content.document);
  const where = `In ${[space.title, ...ref.trail].join(' › ')}`;
  const created = iso(ref.createdAt);
  const updated = iso(ref.updatedAt);
  return {
    external_id: pageExternalId(space.id, ref.id),
    title: content.title || ref.title,
    content: [content.description?.trim() ?? '', where, body].filter(Boolean).join('\n\n'),
    url: ref.url ?? `${space.url.replace(/\/+$/, '')}/${ref.path}`,
    document_type: 'page',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: { space_id: space.id, space: space.title, page_id: ref.id, path: ref.path, title: ref.title, updated_at: ref.updatedAt, revision: space.revision },
    acl: spaceAcl(space),
  };
}

export function spaceToDocument(space: SpaceRef, pages: readonly PageRef[]): SourceDocument {
  const updated = iso(space.updatedAt);
  return {
    external_id: spaceExternalId(space.id),
    title: space.title,
    content: [`GitBook space ${space.title}${space.orgTitle ? ` (${space.orgTitle})` : ''}`, pages.length ? `Pages:\n${pages.map((p) => `- ${[...p.trail, p.title].join(' › ')}`).join('\n')}` : '']
      .filter(Boolean)
      .join('\n\n'),
    url: space.url,
    document_type: 'space',
    ...(updated ? { updated_at: updated } : {}),
    metadata: { space_id: space.id, organization: space.org, visibility: space.visibility, revision: space.revision },
    acl: spaceAcl(space),
  };
}
