import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';

/** A category of `/categories.json` (with `include_subcategories=true`, its `subcategory_list`). */
export const discourseCategory = z.object({
  id: z.number(),
  name: z.string(),
  slug: z.string(),
  description_text: z.string().nullish(),
  read_restricted: z.boolean().default(false),
  parent_category_id: z.number().nullish(),
  get subcategory_list() {
    return z.array(discourseCategory).nullish();
  },
});
export type DiscourseCategory = z.infer<typeof discourseCategory>;

/** What the sync keeps of a category while it reads its topics. */
export const categoryRef = z.object({ id: z.number(), name: z.string(), slug: z.string(), restricted: z.boolean(), parent: z.string().nullable() });
export type CategoryRef = z.infer<typeof categoryRef>;

/** A topic of a topic list (`/latest.json`, `/c/{slug}/{id}.json`). */
export const listedTopic = z.object({
  id: z.number(),
  category_id: z.number().nullish(),
  archetype: z.string().optional(),
  bumped_at: z.string().nullish(),
  pinned: z.boolean().optional(),
});

export const topicList = z.object({
  topic_list: z.object({ topics: z.array(listedTopic), more_topics_url: z.string().nullish() }),
});

export const discoursePost = z.object({
  id: z.number(),
  username: z.string(),
  name: z.string().nullish(),
  created_at: z.string(),
  updated_at: z.string().nullish(),
  cooked: z.string(),
  post_number: z.number(),
  /** 1 regular, 2 moderator action, 3 small action ("closed this topic"), 4 whisper (staff only). */
  post_type: z.number().default(1),
  topic_id: z.number().optional(),
  hidden: z.boolean().optional(),
  deleted_at: z.string().nullish(),
});
export type DiscoursePost = z.infer<typeof discoursePost>;

/** `/t/{id}.json`: the topic and the first chunk of its posts; `stream` lists every post id in order. */
export const discourseTopic = z.object({
  id: z.number(),
  title: z.string(),
  slug: z.string(),
  category_id: z.number().nullish(),
  archetype: z.string().optional(),
  created_at: z.string(),
  last_posted_at: z.string().nullish(),
  bumped_at: z.string().nullish(),
  deleted_at: z.string().nullish(),
  closed: z.boolean().optional(),
  archived: z.boolean().optional(),
  tags: z.array(z.union([z.string(), z.object({ name: z.string() })])).optional(),
  post_stream: z.object({ posts: z.array(discoursePost), stream: z.array(z.number()).optional() }),
  details: z.object({ created_by: z.object({ id: z.number(), username: z.string(), name: z.string().nullish() }).optional() }).optional(),
});
export type DiscourseTopic = z.infer<typeof discourseTopic>;

export const topicExternalId = (id: number) => `topic:${id}`;
export const categoryExternalId = (id: number) => `category:${id}`;

/** Read-restricted categories are readable by their groups (`discourse:category:<id>`); the others by everyone. */
export function categoryAcl(c: Pick<CategoryRef, 'id' | 'restricted'>): SourceAcl {
  return c.restricted ? { groups: [`discourse:category:${c.id}`] } : { public: true };
}

const iso = (s: string | null | undefined): string | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

/** Posts that carry text a reader wrote: not small actions ("closed this topic"), whispers, hidden or deleted posts. */
export function readablePost(p: DiscoursePost): boolean {
  return (p.post_type === 1 || p.post_type === 2) && !p.hidden && !p.deleted_at;
}

/** A post's cooked HTML as text. */
export function postText(cooked: string): string {
  return parseHtml(cooked).content.replace(/\n{3,}/g, '\n\n').trim();
}

const who = (p: Pick<DiscoursePost, 'username' | 'name'>) => (p.name && p.name !== p.username ? `${p.name} (@${p.username})` : `@${p.username}`);

/**
 * A topic with its posts in one document: the title, its category and tags, then each post as `<who> · <date>` and its
 * text. The author is the topic's creator (username: Discourse shows emails to admins only, in other calls).
 */
export function topicToDocument(site: string, t: DiscourseTopic, posts: readonly DiscoursePost[], cat: CategoryRef | undefined): SourceDocument {
  const tags = (t.tags ?? []).map((x) => (typeof x === 'string' ? x : x.name));
  const header = [cat ? `In ${cat.parent ? `${cat.parent} › ` : ''}${cat.name}` : '', tags.length ? `Tags: ${tags.join(', ')}` : ''].filter(Boolean).join('\n');
  const body = [...posts]
    .filter(readablePost)
    .sort((a, b) => a.post_number - b.post_number)
    .map((p) => `${who(p)} · ${iso(p.created_at)?.slice(0, 10) ?? p.created_at}\n${postText(p.cooked)}`);
  const first = posts.find((p) => p.post_number === 1);
  const lastEdit = posts.reduce<string | undefined>((m, p) => {
    const at = iso(p.updated_at ?? p.created_at);
    return at && (!m || at > m) ? at : m;
  }, undefined);
  const updated = [lastEdit, iso(t.last_posted_at)].filter((x): x is string => Boolean(x)).sort().at(-1);
  return {
    external_id: topicExternalId(t.id),
    title: t.title,
    content: [header, ...body].filter(Boolean).join('\n\n'),
    url: `${site}/t/${t.slug}/${t.id}`,
    author: t.details?.created_by?.username ?? first?.username,
    document_type: 'topic',
    created_at: iso(t.created_at) ?? t.created_at,
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      topic_id: t.id,
      category_id: t.category_id ?? null,
      category: cat?.name ?? null,
      tags,
      posts: body.length,
      closed: t.closed ?? false,
      archived: t.archived ?? false,
      bumped_at: t.bumped_at ?? null,
    },
    acl: cat ? categoryAcl(cat) : {},
  };
}

export function categoryToDocument(site: string, c: CategoryRef, description: string | null | undefined): SourceDocument {
  return {
    external_id: categoryExternalId(c.id),
    title: c.parent ? `${c.parent} › ${c.name}` : c.name,
    content: [`Discourse category ${c.name}${c.parent ? ` (in ${c.parent})` : ''}`, description?.trim() ?? ''].filter(Boolean).join('\n\n'),
    url: `${site}/c/${c.slug}/${c.id}`,
    document_type: 'category',
    metadata: { category_id: c.id, slug: c.slug, read_restricted: c.restricted },
    acl: categoryAcl(c),
  };
}
