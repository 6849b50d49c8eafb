import { z } from 'zod';
import type { ActionDefinition } from '../kit/index.ts';
import { notionCall } from './client.ts';
import type { NotionCredentials, NotionSettings } from './schemas.ts';

const pageRef = z.string().min(1).describe('Notion page id (uuid, with or without dashes) or page URL');

/** A page id from an id or a notion.so URL (the trailing 32 hex digits). */
export function notionId(ref: string): string {
  const hex = ref.replace(/-/g, '').match(/([0-9a-f]{32})(?:[?#].*)?$/i)?.[1];
  if (!hex) throw new Error(`'${ref}' is not a Notion page id or URL`);
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Text → paragraph blocks (one per non-empty line; Notion caps a rich text at 2,000 characters). */
export function paragraphs(text: string): { object: 'block'; type: 'paragraph'; paragraph: { rich_text: { type: 'text'; text: { content: string } }[] } }[] {
  return text
    .split(/\n+/)
    .map((l) => l.trim())
    .filter(Boolean)
    .flatMap((l) => (l.match(/[\s\S]{1,2000}/g) ?? []).map((chunk) => ({ object: 'block' as const, type: 'paragraph' as const, paragraph: { rich_text: [{ type: 'text' as const, text: { content: chunk } }] } })));
}

// Parameter order matters to the rule planner: the intent's free text fills the first text parameter.
export const notionActions: ActionDefinition<NotionCredentials, NotionSettings>[] = [
  {
    name: 'append_to_page',
    description: 'Append paragraphs of text to a Notion page',
    parameters: z.object({ text: z.string().min(1).max(100_000), page: pageRef }),
    async run(ctx, params) {
      const p = z.object({ text: z.string(), page: z.string() }).parse(params);
      const children = paragraphs(p.text);
      if (children.length === 0) throw new Error('nothing to append: the text is blank');
      const r = await notionCall<{ results: { id: string }[] }>(ctx, (c) => c.blocks.children.append({ block_id: notionId(p.page), children }));
      return { page_id: notionId(p.page), block_ids: r.results.map((b) => b.id) };
    },
  },
  {
    name: 'create_page',
    description: 'Create a Notion page under a parent page',
    parameters: z.object({ title: z.string().min(1).max(2000), parent: pageRef, content: z.string().max(100_000).optional() }),
    async run(ctx, params) {
      const p = z.object({ title: z.string(), parent: z.string(), content: z.string().optional() }).parse(params);
      const r = await notionCall<{ id: string; url: string }>(ctx, (c) =>
        c.pages.create({
          parent: { page_id: notionId(p.parent) },
          properties: { title: { title: [{ type: 'text', text: { content: p.title } }] } },
          children: paragraphs(p.content ?? '').slice(0, 100),
        }),
      );
      return { id: r.id, url: r.url };
    },
  },
];
