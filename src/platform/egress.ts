import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { Logger } from './log.ts';

/**
 * Where the service may send requests it builds from tenant-supplied URLs (remote Atrium nodes, SSO IdPs).
 * `denyPrivate` (production mode by default): private, loopback, link-local and other non-public addresses are
 * refused unless `allow` lists them; otherwise (embedded mode) they are allowed with a warning.
 */
export interface EgressSettings {
  /** ATRIUM_EGRESS_ALLOW entries: an IP address, a CIDR range (`10.1.0.0/16`, `fd00::/8`), a host name, or `*.suffix`. */
  readonly allow: readonly string[];
  readonly denyPrivate: boolean;
}

/** An outbound request the egress policy refused; its message says which address and how to allow it. */
export class EgressDeniedError extends Error {
  override readonly name = 'EgressDeniedError';
}

const NON_PUBLIC: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", 0.0.0.0 reaches the local host
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
];

const nonPublic = new BlockList();
for (const [net, prefix, family] of NON_PUBLIC) nonPublic.addSubnet(net, prefix, family);

/** An address as BlockList checks it: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as the IPv4 address it is. */
function normalize(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why an ATRIUM_EGRESS_ALLOW entry is not one, or null when it is. */
export function egressAllowProblem(entry: string): string | null {
  const [net, prefix, extra] = entry.split('/');
  if (extra !== undefined || net === undefined) return `'${entry}' is not an address, CIDR range or host name`;
  if (prefix !== undefined) {
    const family = isIP(net);
    const bits = Number(prefix);
    if (family === 0 || !/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return `'${entry}' is not a CIDR range (e.g. 10.0.0.0/8, fd00::/8)`;
    return null;
  }
  if (isIP(net)) return null;
  return /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(net) ? null : `'${entry}' is not an address, CIDR range or host name`;
}

interface CompiledAllow {
  readonly nets: BlockList;
  readonly hosts: ReadonlySet<string>;
  readonly suffixes: readonly string[];
}

const compiled = new WeakMap<EgressSettings, CompiledAllow>();
const warned = new WeakMap<EgressSettings, Set<string>>();

function compile(settings: EgressSettings): CompiledAllow {
  let c = compiled.get(settings);
  if (c) return c;
  const nets = new BlockList();
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of settings.allow) {
    const [net = '', prefix] = entry.split('/');
    if (isIP(net)) {
      const { address, family } = normalize(net);
      if (prefix === undefined) nets.addAddress(address, family);
      else nets.addSubnet(address, Number(prefix), family);
    } else if (net.startsWith('*.')) suffixes.push(net.slice(1).toLowerCase());
    else hosts.add(net.toLowerCase());
  }
  c = { nets, hosts, suffixes };
  compiled.set(settings, c);
  return c;
}

export type HostLookup = (host: string) => Promise<string[]>;

const systemLookup: HostLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a URL the service is about to request against the egress policy: http(s) only; a host listed in
 * ATRIUM_EGRESS_ALLOW passes; otherwise every address the name resolves to (not just the name) must be public
 * or inside an allowed range. Throws EgressDeniedError. A name that does not resolve passes: the request itself
 * fails. The request resolves the name again, so a DNS answer that changes in between (rebinding) is not caught.
 */
export async function checkEgress(settings: EgressSettings, url: string | URL, opts: { log?: Logger; lookup?: HostLookup } = {}): Promise<void> {
  const u = typeof url === 'string' ? new URL(url) : url;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new EgressDeniedError(`only http and https URLs may be requested, not ${u.protocol}`);
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allow = compile(settings);
  if (allow.hosts.has(host) || allow.suffixes.some((s) => host.endsWith(s))) return;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (opts.lookup ?? systemLookup)(host);
  } catch {
    return;
  }
  for (const raw of addresses) {
    const { address, family } = normalize(raw);
    if (!nonPublic.check(address, family) || allow.nets.check(address, family)) continue;
    const what = address === host ? address : `${host} (${address})`;
    if (settings.denyPrivate) {
      throw new EgressDeniedError(
        `${what} is a private, loopback or link-local address: outbound requests there are refused in production mode; list it in ATRIUM_EGRESS_ALLOW to allow it`,
      );
    }
    const seen = warned.get(settings) ?? new Set<string>();
    warned.set(settings, seen);
    if (!seen.has(what)) {
      seen.add(what);
      opts.log?.warn({ host, address }, 'outbound request to a private, loopback or link-local address: allowed in embedded mode, refused in production unless ATRIUM_EGRESS_ALLOW lists it');
    }
  }
}

/**
 * `fetch` under the egress policy, never following redirects: a 3xx comes back as the answer (the caller treats
 * it as a failure), so credentials sent to a node never travel on to wherever it points.
 */
export function egressFetch(settings: EgressSettings, opts: { log?: Logger; lookup?: HostLookup } = {}): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : input instanceof URL ? input : String(input);
    await checkEgress(settings, url, opts);
    return fetch(input, { ...init, redirect: 'manual' });
  };
}
