import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/** Public sites need no credentials (see README: credentials for intranet sites are not done yet). */
export const webCredentials = z.object({}).strict();
export type WebCredentials = z.infer<typeof webCredentials>;

/** An absolute http(s) URL without credentials; the fragment is dropped. */
const httpUrl = (description: string) =>
  z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      let u: URL;
      try {
        u = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: `'${value.slice(0, 100)}' is not an absolute URL (e.g. https://docs.example.com/)` });
        return;
      }
      if (u.protocol !== 'https:' && u.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
      else if (u.username || u.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
    })
    .transform((v) => {
      const u = new URL(v);
      u.hash = '';
      return u.toString();
    })
    .describe(description);

/** A URL origin: scheme, host and port (`https://docs.example.com`, `http://intranet:8080`). */
const origin = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    try {
      const u = new URL(value);
      if ((u.protocol === 'https:' || u.protocol === 'http:') && u.origin === value.replace(/\/$/, '')) return;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: `'${value.slice(0, 100)}' is not an origin like https://docs.example.com (scheme, host, optional port, no path)` });
  })
  .transform((v) => new URL(v).origin);

const glob = z.string().min(1).max(500);

export const webSettings = z
  .object({
    seed_urls: z.array(httpUrl('a page to start from')).max(100).default([]).describe('pages the crawl starts from (each at depth 0)'),
    sitemap_url: httpUrl('a sitemap (urlset or sitemap index, XML or .xml.gz) whose URLs are crawled at depth 0').optional(),
    allowed_origins: z
      .array(origin)
      .max(50)
      .default([])
      .describe("origins besides the seeds' and the sitemap's whose pages are crawled too (links and redirects to any other origin are not followed)"),
    include_patterns: z
      .array(glob)
      .max(100)
      .default([])
      .describe('when given, only URLs whose path matches one of these globs are crawled (e.g. "/docs/**"); seeds always are'),
    exclude_patterns: z.array(glob).max(100).default([]).describe('URLs whose path matches one of these globs are not crawled (e.g. "/blog/tag/**")'),
    max_depth: z.number().int().min(0).max(100).default(5).describe('links are followed this many steps from a seed or sitemap URL (0: only those)'),
    max_pages: z.number().int().min(1).max(100_000).default(1000).describe('at most this many URLs are fetched per sync'),
    concurrency: z.number().int().min(1).max(8).default(2).describe('requests in flight at once'),
    delay_ms: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(250)
      .describe("pause after each request, per request slot (politeness); a robots.txt Crawl-delay (up to 30 s) raises it"),
    max_page_size_mb: z.number().int().min(1).max(50).default(10).describe('larger pages and files are skipped'),
    ...commonSettings,
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.seed_urls.length === 0 && !s.sitemap_url) ctx.addIssue({ code: 'custom', path: ['seed_urls'], message: 'give seed_urls or a sitemap_url to start the crawl from' });
  });
export type WebSettings = z.infer<typeof webSettings>;

/** The robots.txt rules that apply to the crawler on one origin (kept in the page so a resumed sync need not refetch). */
const robotsSchema = z.object({
  rules: z.array(z.object({ allow: z.boolean(), path: z.string() })),
  delay_ms: z.number(),
});

const frontierEntry = z.object({
  url: z.string(),
  depth: z.number().int(),
  stored: z.boolean().optional(),
  etag: z.string().optional(),
  last_modified: z.string().optional(),
});
export type FrontierEntry = z.infer<typeof frontierEntry>;

export const webPage = z.object({
  mode: z.enum(['incremental', 'full']),
  /** Sitemaps still to read (an index lists more). */
  sitemaps: z.array(z.string()),
  /** An incremental sync first queues every stored page (revisited with a conditional GET). */
  revisit_stored: z.boolean(),
  /** URLs to fetch, in order, with their link depth; a stored page with its validators. */
  frontier: z.array(frontierEntry),
  /** Every URL queued so far (normalized): nothing is queued twice. */
  queued: z.array(z.string()),
  fetched: z.number().int(),
  robots: z.record(z.string(), robotsSchema),
});
export type WebPage = z.infer<typeof webPage>;
export type OriginRobots = z.infer<typeof robotsSchema>;

export const webCursor = z.object({ crawled_at: z.string() });
export type WebCursor = z.infer<typeof webCursor>;
