/**
 * robots.txt as RFC 9309 (Robots Exclusion Protocol) defines it, reduced to what one crawler needs: the rules of the
 * groups that match its product token (else the `*` groups), matched by the longest pattern (`allow` wins a tie),
 * with `*` and `$` as special characters. `Crawl-delay` (not in the RFC, widely used) and `Sitemap` lines are read too.
 */

export interface RobotsRule {
  readonly allow: boolean;
  readonly path: string;
}

export interface RobotsPolicy {
  readonly rules: readonly RobotsRule[];
  /** Seconds between requests the site asks for (`Crawl-delay`), when its matching group says so. */
  readonly crawlDelay?: number;
  /** `Sitemap:` URLs (absolute, any group). */
  readonly sitemaps: readonly string[];
}

/** RFC 9309 §2.5: crawlers may stop reading after 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

interface Group {
  agents: string[];
  rules: RobotsRule[];
  crawlDelay?: number;
}

/** The policy `robotsTxt` sets for the crawler whose product token is `token` (case-insensitive). */
export function robotsPolicy(robotsTxt: string, token: string): RobotsPolicy {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | null = null;
  // A user-agent line after a rule starts a new group; consecutive user-agent lines share one (§2.1).
  let lastWasAgent = false;
  for (const raw of robotsTxt.slice(0, ROBOTS_MAX_BYTES).split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m?.[1]) continue;
    const key = m[1].toLowerCase();
    const value = (m[2] ?? '').trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (key === 'allow' || key === 'disallow') {
      // An empty disallow allows everything: it is no rule at all.
      if (value) current.rules.push({ allow: key === 'allow', path: encodePattern(value) });
    } else if (key === 'crawl-delay') {
      const n = Number(value);
      if (Number.isFinite(n) && n >= 0) current.crawlDelay = n;
    }
  }
  const me = token.toLowerCase();
  // §2.2.1: the product token matches case-insensitively; several matching groups are combined.
  let chosen = groups.filter((g) => g.agents.some((a) => a === me));
  if (chosen.length === 0) chosen = groups.filter((g) => g.agents.includes('*'));
  const delays = chosen.map((g) => g.crawlDelay).filter((d): d is number => d !== undefined);
  return {
    rules: chosen.flatMap((g) => g.rules),
    ...(delays.length > 0 ? { crawlDelay: Math.max(...delays) } : {}),
    sitemaps,
  };
}

/** Percent-encodes what a URL would (non-ASCII, spaces), so a pattern compares with a URL's path octet for octet. */
function encodePattern(p: string): string {
  return p.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)).replace(/%[0-9a-f]{2}/gi, (e) => e.toUpperCase());
}

/** Whether the pattern (`*` any run of characters, a final `$` the end) matches `path` from its start. */
function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const source = body
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`, 's').test(path);
}

/**
 * Whether the crawler may fetch `pathAndQuery` (the URL's path and query, as `URL` encodes them). RFC 9309 §2.2.2:
 * the most specific (longest) matching rule wins; `allow` wins over an equally long `disallow`; no match allows.
 * `/robots.txt` is always allowed.
 */
export function robotsAllows(policy: Pick<RobotsPolicy, 'rules'>, pathAndQuery: string): boolean {
  if (pathAndQuery === '/robots.txt') return true;
  const path = pathAndQuery.replace(/%[0-9a-f]{2}/gi, (e) => e.toUpperCase());
  let best: RobotsRule | null = null;
  for (const rule of policy.rules) {
    if (!matches(rule.path, path)) continue;
    if (!best || rule.path.length > best.path.length || (rule.path.length === best.path.length && rule.allow && !best.allow)) best = rule;
  }
  return best ? best.allow : true;
}
