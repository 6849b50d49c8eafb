import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkEgress, EgressDeniedError, egressAllowProblem, type HostLookup } from './egress.ts';
import type { Logger } from './log.ts';

const dns: Record<string, string[]> = {
  'public.example.com': ['93.184.216.34'],
  'inside.example.com': ['10.1.2.3'],
  'sneaky.example.com': ['93.184.216.34', '127.0.0.1'],
  'mapped.example.com': ['::ffff:169.254.169.254'],
  'node.corp.internal': ['10.9.9.9'],
};
const lookup: HostLookup = async (host) => {
  const a = dns[host];
  if (!a) throw new Error(`ENOTFOUND ${host}`);
  return a;
};
const denied = (allow: string[] = []) => ({ allow, denyPrivate: true });

describe('egress policy', () => {
  it('production mode refuses private, loopback and link-local addresses, by literal or by what a name resolves to', async () => {
    for (const url of [
      'http://127.0.0.1:8080',
      'http://[::1]/',
      'http://10.0.0.5',
      'http://192.168.1.1',
      'http://172.20.0.1',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/',
      'http://[fd12::1]/',
      'http://0.0.0.0:9',
      'http://inside.example.com',
      'http://sneaky.example.com',
      'http://mapped.example.com',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      await assert.rejects(checkEgress(denied(), url, { lookup }), EgressDeniedError, url);
    }
    await assert.rejects(checkEgress(denied(), 'http://sneaky.example.com', { lookup }), /sneaky\.example\.com \(127\.0\.0\.1\).*ATRIUM_EGRESS_ALLOW/);
    await checkEgress(denied(), 'https://public.example.com', { lookup });
    await checkEgress(denied(), 'https://8.8.8.8', { lookup });
    await checkEgress(denied(), 'https://unresolvable.example.com', { lookup });
    await assert.rejects(checkEgress(denied(), 'ftp://public.example.com', { lookup }), /only http and https/);
  });

  it('ATRIUM_EGRESS_ALLOW lets through listed addresses, ranges and host names', async () => {
    await checkEgress(denied(['127.0.0.1']), 'http://127.0.0.1:8080', { lookup });
    await assert.rejects(checkEgress(denied(['127.0.0.1']), 'http://127.0.0.2:8080', { lookup }), EgressDeniedError);
    await checkEgress(denied(['127.0.0.0/8', '::1/128']), 'http://[::1]:8080', { lookup });
    await checkEgress(denied(['10.0.0.0/8']), 'http://inside.example.com', { lookup });
    await checkEgress(denied(['*.corp.internal']), 'http://node.corp.internal', { lookup });
    await checkEgress(denied(['node.corp.internal']), 'http://node.corp.internal', { lookup });
  });

  it('embedded mode allows private addresses (with a warning)', async () => {
    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => warnings.push(o) } as unknown as Logger;
    const settings = { allow: [], denyPrivate: false };
    await checkEgress(settings, 'http://127.0.0.1:8080', { lookup, log });
    await checkEgress(settings, 'http://127.0.0.1:8081', { lookup, log });
    assert.equal(warnings.length, 1, 'once per address');
  });

  it('validates allow entries', () => {
    for (const ok of ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'atrium-b.internal', '*.corp.example']) assert.equal(egressAllowProblem(ok), null, ok);
    for (const bad of ['10.0.0.0/33', 'http://x', 'a b', '10.0.0.0/8/1', 'x/8']) assert.ok(egressAllowProblem(bad), bad);
  });
});
