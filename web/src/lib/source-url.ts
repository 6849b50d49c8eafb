// Document urls are stored exactly as their source gave them (a push client, a connector; the filesystem
// connector writes file:// urls), so the console decides what is safe to make clickable.

/** How to show a document's source url: a link for absolute http(s) URLs, plain text for anything else. */
export type SourceUrl = { readonly kind: 'link'; readonly href: string } | { readonly kind: 'text'; readonly text: string };

/**
 * Only absolute http: and https: URLs become links: `data:`, `javascript:`, `file:` and OS protocol handlers
 * (`ms-msdt:`, `search-ms:`) would otherwise run or open something from the console's origin, and a string that
 * is no absolute URL would become a relative link into the console. A `file:` url shows its path, which is useful
 * to someone with access to that server.
 */
export function sourceUrl(raw: string): SourceUrl {
  const value = raw.trim();
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname) return { kind: 'link', href: parsed.href };
  if (/^file:/i.test(value)) return { kind: 'text', text: filePath(value) };
  return { kind: 'text', text: value };
}

/**
 * The path of a file: url, read from the text rather than through `URL`: connectors write paths unencoded
 * (`file:///srv/a#1.md`), where `URL` would cut the path at `#` or `?`.
 */
function filePath(value: string): string {
  const rest = value.replace(/^file:/i, '');
  const withoutLocalhost = rest.replace(/^\/\/localhost(?=\/)/i, '');
  // file:///p → /p; file://host/p → //host/p (a UNC-style share); file:/p → /p.
  const path = withoutLocalhost.startsWith('///') ? withoutLocalhost.slice(2) : withoutLocalhost;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
