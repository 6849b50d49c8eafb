import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import { storageToText } from './render.ts';

/** The fields of Confluence's v2 (and v1 where noted) answers the connector reads; the rest is ignored. */
const id = z.coerce.string();
const links = z.object({ webui: z.string().optional() }).partial().optional();
const version = z.object({ number: z.number().optional(), createdAt: z.string().optional(), authorId: z.string().optional() }).optional();
const storageBody = z.object({ storage: z.object({ value: z.string().default('') }).optional() }).optional();

export const cfSpace = z.object({ id, key: z.string(), name: z.string().default(''), type: z.string().optional(), status: z.string().optional(), _links: links });
export type CfSpace = z.infer<typeof cfSpace>;

/** A page (`PageBulk`/`PageSingle`) or blog post (`BlogPostBulk`/`BlogPostSingle`). */
export const cfContent = z.object({
  id,
  status: z.string().optional(),
  title: z.string().default(''),
  spaceId: id.optional(),
  parentId: id.nullish(),
  authorId: z.string().optional(),
  createdAt: z.string().optional(),
  version,
  body: storageBody,
  _links: links,
});
export type CfContent = z.infer<typeof cfContent>;

/** A footer (`FooterCommentModel`) or inline (`InlineCommentModel`) comment. */
export const cfComment = z.object({
  id,
  status: z.string().optional(),
  title: z.string().optional(),
  pageId: id.nullish(),
  blogPostId: id.nullish(),
  parentCommentId: id.nullish(),
  version,
  body: storageBody,
  resolutionStatus: z.string().optional(),
  properties: z.object({ 'inline-original-selection': z.string().optional() }).partial().optional(),
  _links: links,
});
export type CfComment = z.infer<typeof cfComment>;

export const cfAttachment = z.object({ id, title: z.string().default(''), mediaType: z.string().optional(), fileSize: z.number().optional() });
export type CfAttachment = z.infer<typeof cfAttachment>;

/** `SpacePermission`: principal user/group/role; `anonymousAccess` as v1's space permissions state it. */
export const cfPermission = z.object({
  principal: z.object({ type: z.string(), id: z.string().optional() }).optional(),
  operation: z.object({ key: z.string(), targetType: z.string().optional() }),
  anonymousAccess: z.boolean().optional(),
});
export type CfPermission = z.infer<typeof cfPermission>;

/** v1 `ContentRestriction` of the `read` operation (expand=restrictions.user,restrictions.group). */
export const cfReadRestriction = z.object({
  restrictions: z
    .object({
      user: z.object({ results: z.array(z.object({ accountId: z.string(), email: z.string().nullish() })).default([]) }).optional(),
      group: z.object({ results: z.array(z.object({ id: z.string().optional(), name: z.string() })).default([]) }).optional(),
    })
    .optional(),
});
export type CfReadRestriction = z.infer<typeof cfReadRestriction>;

/** v1 `BulkUserLookup`: `email` is empty when the user's profile hides it. */
export const cfUser = z.object({ accountId: z.string(), displayName: z.string().optional(), publicName: z.string().optional(), email: z.string().nullish() });
export type CfUser = z.infer<typeof cfUser>;

export type ContentKind = 'page' | 'blogpost';

const CT = 'confluence';
const userRef = (accountId: string, email?: string | null) => (email ? email.toLowerCase() : `${CT}:${accountId}`);
const uniq = (xs: string[]) => [...new Set(xs)].sort();

/**
 * A space's ACL from its permissions: who has `read` on the space (users as `confluence:<accountId>`, groups as
 * `confluence:<groupId>`), always the space's own group `confluence:space:<spaceId>`, and `public` when anonymous
 * users may read it.
 */
export function spaceAcl(spaceId: string, permissions: readonly CfPermission[]): SourceAcl {
  const reads = permissions.filter((p) => p.operation.key === 'read' && (p.operation.targetType ?? 'space') === 'space');
  const users = reads.filter((p) => p.principal?.type === 'user' && p.principal.id).map((p) => userRef(p.principal?.id ?? ''));
  const groups = reads.filter((p) => p.principal?.type === 'group' && p.principal.id).map((p) => `${CT}:${p.principal?.id}`);
  const anonymous = reads.some((p) => p.anonymousAccess === true || p.principal?.type === 'anonymous');
  return {
    ...(anonymous ? { public: true } : {}),
    ...(users.length ? { users: uniq(users) } : {}),
    groups: uniq([`${CT}:space:${spaceId}`, ...groups]),
  };
}

/**
 * A page's view restriction narrows its space's ACL to the users and groups it names (emails where Confluence shows
 * them); null when the page has no read restriction (the space's ACL applies).
 */
export function restrictionAcl(r: CfReadRestriction | null): SourceAcl | null {
  const users = r?.restrictions?.user?.results ?? [];
  const groups = r?.restrictions?.group?.results ?? [];
  if (users.length === 0 && groups.length === 0) return null;
  return {
    ...(users.length ? { users: uniq(users.map((u) => userRef(u.accountId, u.email))) } : {}),
    ...(groups.length ? { groups: uniq(groups.map((g) => `${CT}:${g.id ?? g.name}`)) } : {}),
  };
}

export interface MapContext {
  /** The site's web root (https://acme.atlassian.net): links are `<site>/wiki<_links.webui>`. */
  readonly site: string;
  readonly space: Pick<CfSpace, 'id' | 'key' | 'name'>;
  readonly acl: SourceAcl;
  readonly users: ReadonlyMap<string, CfUser>;
}

const webUrl = (site: string, webui: string | undefined) => (webui ? `${site}/wiki${webui.startsWith('/') ? '' : '/'}${webui}` : undefined);
const nameOf = (users: ReadonlyMap<string, CfUser>, accountId: string | undefined) =>
  accountId ? (users.get(accountId)?.displayName ?? users.get(accountId)?.publicName ?? accountId) : undefined;
const namesMap = (users: ReadonlyMap<string, CfUser>) => new Map([...users].map(([k, u]) => [k, u.displayName ?? u.publicName ?? k]));

/** A page or blog post: its storage body as text, its attachments' names listed after it. */
export function contentToDocument(kind: ContentKind, c: CfContent, m: MapContext, attachments: readonly CfAttachment[] = []): SourceDocument {
  const body = storageToText(c.body?.storage?.value ?? '', namesMap(m.users));
  const files = attachments.map((a) => a.title).filter(Boolean);
  const content = [body, files.length ? `Attachments: ${files.join(', ')}` : ''].filter(Boolean).join('\n\n');
  const author = m.users.get(c.authorId ?? '');
  return {
    external_id: `${kind}:${c.id}`,
    title: c.title || `Untitled ${kind === 'page' ? 'page' : 'blog post'} ${c.id}`,
    content: content || c.title,
    url: webUrl(m.site, c._links?.webui),
    author: nameOf(m.users, c.authorId),
    document_type: kind,
    created_at: c.createdAt,
    updated_at: c.version?.createdAt ?? c.createdAt,
    metadata: {
      confluence_id: c.id,
      space_id: m.space.id,
      space_key: m.space.key,
      space_name: m.space.name,
      ...(c.parentId ? { parent_id: c.parentId } : {}),
      version: c.version?.number ?? null,
      author_id: c.authorId ?? null,
      ...(author?.email ? { author_email: author.email.toLowerCase() } : {}),
      last_editor_id: c.version?.authorId ?? null,
      attachments: attachments.map((a) => ({ id: a.id, title: a.title, media_type: a.mediaType ?? null, file_size: a.fileSize ?? null })),
    },
    acl: m.acl,
  };
}

export interface CommentContainer {
  readonly kind: ContentKind;
  readonly id: string;
  readonly title: string;
  readonly url: string | undefined;
}

/** A footer or inline comment: its own document, with its page's ACL; an inline comment quotes the text it is on. */
export function commentToDocument(type: 'footer' | 'inline', c: CfComment, container: CommentContainer, m: MapContext): SourceDocument {
  const text = storageToText(c.body?.storage?.value ?? '', namesMap(m.users));
  const selection = c.properties?.['inline-original-selection']?.trim();
  const content = [selection ? `> ${selection}` : '', text].filter(Boolean).join('\n\n');
  const authorId = c.version?.authorId;
  return {
    external_id: `comment:${c.id}`,
    title: `Comment on ${container.title}`,
    content: content || '(empty comment)',
    url: webUrl(m.site, c._links?.webui) ?? (container.url ? `${container.url}?focusedCommentId=${c.id}` : undefined),
    author: nameOf(m.users, authorId),
    document_type: 'comment',
    created_at: c.version?.createdAt,
    updated_at: c.version?.createdAt,
    metadata: {
      confluence_id: c.id,
      comment_type: type,
      container_type: container.kind,
      container_id: container.id,
      space_id: m.space.id,
      space_key: m.space.key,
      ...(c.parentCommentId ? { parent_comment_id: c.parentCommentId } : {}),
      ...(c.resolutionStatus ? { resolution_status: c.resolutionStatus } : {}),
      author_id: authorId ?? null,
    },
    acl: m.acl,
  };
}
