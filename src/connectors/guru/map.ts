import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';

export const guruCollection = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string().optional(),
  description: z.string().nullish(),
  /** `INTERNAL` (team members) or `EXTERNAL` (shared outside the team: public). */
  collectionType: z.string().optional(),
  publicCardsEnabled: z.boolean().optional(),
  dateCreated: z.string().optional(),
});
export type GuruCollection = z.infer<typeof guruCollection>;

const person = z.object({ email: z.string().optional(), firstName: z.string().optional(), lastName: z.string().optional() });

export const guruCard = z.object({
  id: z.string(),
  slug: z.string().optional(),
  preferredPhrase: z.string(),
  content: z.string().default(''),
  dateCreated: z.string().optional(),
  lastModified: z.string().optional(),
  owner: person.nullish(),
  lastModifiedBy: person.nullish(),
  collection: z.object({ id: z.string(), name: z.string().optional(), collectionType: z.string().optional(), publicCardsEnabled: z.boolean().optional() }).nullish(),
  boards: z.array(z.object({ id: z.string().optional(), title: z.string() })).optional(),
  tags: z.array(z.object({ value: z.string() })).optional(),
  verificationState: z.string().optional(),
  /** `PUBLIC` when the card is shared publicly (its collection must allow public cards). */
  shareStatus: z.string().optional(),
});
export type GuruCard = z.infer<typeof guruCard>;

export const collectionExternalId = (id: string) => `collection:${id}`;
export const cardExternalId = (id: string) => `card:${id}`;

const APP = 'https://app.getguru.com';

/**
 * An external collection, or a public card of a collection that allows public cards, is readable by anyone; every
 * other card by the collection's members (`guru:collection:<id>`).
 */
export function cardAcl(card: Pick<GuruCard, 'shareStatus'>, collection: Pick<GuruCollection, 'id' | 'collectionType' | 'publicCardsEnabled'>): SourceAcl {
  if (collection.collectionType === 'EXTERNAL') return { public: true };
  if (collection.publicCardsEnabled && card.shareStatus === 'PUBLIC') return { public: true };
  return { groups: [`guru:collection:${collection.id}`] };
}

const iso = (s: string | null | undefined): string | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

const fullName = (p: z.infer<typeof person> | null | undefined) => [p?.firstName, p?.lastName].filter(Boolean).join(' ');

export function cardToDocument(card: GuruCard, collection: GuruCollection): SourceDocument {
  const boards = (card.boards ?? []).map((b) => b.title);
  const tags = (card.tags ?? []).map((t) => t.value);
  const header = [
    `In ${collection.name}${boards.length ? ` › ${boards.join(', ')}` : ''}`,
    tags.length ? `Tags: ${tags.join(', ')}` : '',
    card.verificationState ? `Verification: ${card.verificationState.toLowerCase()}` : '',
  ].filter(Boolean);
  const text = parseHtml(card.content).content.replace(/\n{3,}/g, '\n\n').trim();
  const created = iso(card.dateCreated);
  const updated = iso(card.lastModified);
  return {
    external_id: cardExternalId(card.id),
    title: card.preferredPhrase,
    content: [header.join('\n'), text].filter(Boolean).join('\n\n'),
    url: `${APP}/card/${card.slug ?? card.id}`,
    ...(card.owner?.email ? { author: card.owner.email.toLowerCase() } : {}),
    document_type: 'card',
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      card_id: card.id,
      collection_id: collection.id,
      collection: collection.name,
      boards,
      tags,
      verification_state: card.verificationState ?? null,
      owner_name: fullName(card.owner) || null,
      last_modified_by: card.lastModifiedBy?.email?.toLowerCase() ?? null,
    },
    acl: cardAcl(card, collection),
  };
}

export function collectionToDocument(c: GuruCollection): SourceDocument {
  const created = iso(c.dateCreated);
  return {
    external_id: collectionExternalId(c.id),
    title: c.name,
    content: [`Guru collection ${c.name}`, c.description?.trim() ?? ''].filter(Boolean).join('\n\n'),
    url: c.slug ? `${APP}/collections/${c.slug}` : APP,
    document_type: 'collection',
    ...(created ? { created_at: created } : {}),
    metadata: { collection_id: c.id, collection_type: c.collectionType ?? null },
    acl: c.collectionType === 'EXTERNAL' ? { public: true } : { groups: [`guru:collection:${c.id}`] },
  };
}
