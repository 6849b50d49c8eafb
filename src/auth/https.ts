import { isIP } from 'node:net';

function isLoopbackAddress(addr: string | undefined): boolean {
  if (!addr) return false;
  const a = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  if (isIP(a) === 4) return a.startsWith('127.');
  return a === '::1';
}

function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || isLoopbackAddress(h);
}

/**
 * Whether an SSO request arrived over a transport we accept. HTTPS is required; `protocol` is Fastify's
 * `request.protocol`, which honours `X-Forwarded-Proto` only when ATRIUM_TRUST_PROXY=true. Plain HTTP is
 * accepted only for local development: the service's public URL is a loopback URL and the peer is loopback.
 */
export function isSecureTransport(input: { protocol: string; remoteAddress: string | undefined; publicUrl: string }): boolean {
  if (input.protocol === 'https') return true;
  const pub = new URL(input.publicUrl);
  return pub.protocol === 'http:' && isLoopbackHost(pub.hostname) && isLoopbackAddress(input.remoteAddress);
}

/** Loopback issuers may use plain HTTP (development IdPs); any other issuer must be HTTPS. */
export function isLoopbackUrl(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}
