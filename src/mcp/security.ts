/**
 * Transport security for browser-reachable endpoints (MCP Streamable HTTP rules): a request whose
 * `Origin` is present and not allowed is refused (403), and the `Host` header must name this service,
 * which defeats DNS rebinding (a hostile name resolving to 127.0.0.1 still arrives with its own Host).
 */

/** `scheme://host[:port]` lowercased, default ports dropped; undefined for anything that is not an origin. */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const u = new URL(value.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  // Non-browser clients (assistants, curl, SDKs) send no Origin; browsers always do on cross-origin requests.
  if (origin === undefined) return true;
  if (allowed.includes('*')) return true;
  const normalized = normalizeOrigin(origin);
  if (!normalized) return false;
  return allowed.some((a) => normalizeOrigin(a) === normalized);
}

/** Request headers a browser page may send to the MCP endpoint (CORS preflight answer). */
const CORS_ALLOW_HEADERS = 'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id';

/**
 * CORS headers for a browser request from an origin `originAllowed` admitted (none without an Origin): the origin is
 * echoed (credentials travel in `Authorization`, never in cookies), and the session id header is readable by the page.
 * `preflight` adds the answer to an OPTIONS request.
 */
export function corsHeaders(origin: string | undefined, preflight: boolean): Record<string, string> {
  if (origin === undefined) return {};
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
  };
  if (preflight) {
    headers['access-control-allow-methods'] = 'GET, POST, DELETE';
    headers['access-control-allow-headers'] = CORS_ALLOW_HEADERS;
    headers['access-control-max-age'] = '600';
  }
  return headers;
}

/** The hostname of a Host header (`example.com:8080` → `example.com`, `[::1]:80` → `::1`), lowercased. */
export function hostnameOf(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  if (!h) return undefined;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return undefined;
    const rest = h.slice(end + 1);
    if (rest && !/^:\d{1,5}$/.test(rest)) return undefined;
    return h.slice(1, end);
  }
  const m = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(h);
  return m?.[1];
}

export function hostAllowed(host: string | undefined, allowedHostnames: readonly string[]): boolean {
  if (allowedHostnames.includes('*')) return true;
  if (host === undefined) return false;
  const name = hostnameOf(host);
  if (!name) return false;
  return allowedHostnames.some((a) => a.toLowerCase() === name);
}

const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/**
 * Hostnames the service answers to: the public URL's, the bind address when it is a specific one,
 * the loopback names when bound to loopback or all interfaces, and any configured extra names.
 */
export function defaultAllowedHosts(opts: { publicUrl: string; bindHost: string; extra?: readonly string[] }): string[] {
  const out = new Set<string>();
  try {
    out.add(new URL(opts.publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, ''));
  } catch {
    // a malformed public URL adds nothing
  }
  const bind = opts.bindHost.toLowerCase().replace(/^\[|\]$/g, '');
  const wildcard = bind === '0.0.0.0' || bind === '::';
  if (!wildcard) out.add(bind);
  if (wildcard || LOOPBACK.includes(bind) || bind.startsWith('127.')) for (const h of LOOPBACK) out.add(h);
  for (const h of opts.extra ?? []) out.add(h.toLowerCase());
  return [...out];
}

/** The origins allowed by default: the service's own (its web console), plus configured ones. */
export function defaultAllowedOrigins(opts: { publicUrl: string; extra?: readonly string[] }): string[] {
  const own = normalizeOrigin(opts.publicUrl);
  return [...new Set([...(own ? [own] : []), ...(opts.extra ?? [])])];
}
