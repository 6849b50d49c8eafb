import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/** Public feeds need no credentials. */
export const rssCredentials = z.object({}).strict();
export type RssCredentials = z.infer<typeof rssCredentials>;

const feedUrl = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `'${value.slice(0, 100)}' is not an absolute URL (e.g. https://blog.example.com/feed.xml)` });
      return;
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
    else if (u.username || u.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
  })
  .transform((v) => {
    const u = new URL(v);
    u.hash = '';
    return u.toString();
  });

export const rssSettings = z
  .object({
    feed_urls: z.array(feedUrl).min(1).max(200).describe('the RSS 2.0, RSS 1.0 (RDF) or Atom 1.0 feeds to read'),
    delete_missing_items: z
      .boolean()
      .default(false)
      .describe('delete stored items a feed no longer lists (default false: a feed is a window onto recent items, so they are kept)'),
    max_feed_size_mb: z.number().int().min(1).max(50).default(20).describe('a larger feed is not read (reported as skipped)'),
    ...commonSettings,
  })
  .strict();
export type RssSettings = z.infer<typeof rssSettings>;

const validators = z.object({ etag: z.string().optional(), last_modified: z.string().optional() });

/** Per feed, the validators of its last 200 answer (for the next conditional GET). */
export const rssCursor = z.object({ feeds: z.record(z.string(), validators) });
export type RssCursor = z.infer<typeof rssCursor>;

export const rssPage = z.object({ mode: z.enum(['incremental', 'full']), index: z.number().int().min(0), feeds: z.record(z.string(), validators) });
export type RssPage = z.infer<typeof rssPage>;
