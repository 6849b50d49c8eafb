import { fetchPublic, type SourceContext } from '../kit/index.ts';

export const USER_AGENT = 'Mozilla/5.0 (compatible; AtriumBot/1.0; feed reader)';

export interface FeedAnswer {
  /** 200 with a body, 304 (unchanged since the validators), or another 4xx. */
  readonly status: number;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string | null;
  readonly tooLarge?: boolean;
}

/**
 * GET of one feed through the kit's `fetchPublic` (egress policy on every hop, redirects followed: feeds move, http →
 * https, a new host), conditional with the validators of the last answer (RFC 9110 §13.1), the body read up to
 * `maxBytes` and decoded in its declared charset. 429 (or 503 + Retry-After) → VendorRateLimitedError; 5xx/408 →
 * transient VendorHttpError; other statuses returned.
 */
export async function fetchFeed(
  ctx: Pick<SourceContext<unknown, unknown>, 'fetch' | 'checkEgress' | 'signal'>,
  url: string,
  opts: { etag?: string; lastModified?: string; maxBytes: number },
): Promise<FeedAnswer> {
  const headers: Record<string, string> = {
    'user-agent': USER_AGENT,
    accept: 'application/atom+xml, application/rss+xml, application/rdf+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.1',
  };
  if (opts.etag) headers['if-none-match'] = opts.etag;
  if (opts.lastModified) headers['if-modified-since'] = opts.lastModified;
  const answer = await fetchPublic(ctx, url, { headers, maxBytes: opts.maxBytes, follow: (location, from) => new URL(location, from).toString() });
  return { status: answer.status, url: answer.url, headers: answer.headers, body: answer.body ? decode(answer.body, answer.headers) : null, tooLarge: answer.tooLarge };
}

/** The charset of the Content-Type, else of the XML declaration, else UTF-8. */
function decode(bytes: Uint8Array, headers: Headers): string {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(headers.get('content-type') ?? '')?.[1] ?? /<\?xml[^>]*encoding\s*=\s*["']([\w-]+)["']/i.exec(head)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
