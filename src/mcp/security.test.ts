import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultAllowedHosts, defaultAllowedOrigins, hostAllowed, hostnameOf, originAllowed } from './security.ts';

describe('mcp transport security', () => {
  it('allows requests without Origin and refuses foreign or malformed origins', () => {
    const allowed = ['http://127.0.0.1:8080', 'https://console.example.com'];
    assert.equal(originAllowed(undefined, allowed), true);
    assert.equal(originAllowed('http://127.0.0.1:8080', allowed), true);
    assert.equal(originAllowed('HTTPS://Console.Example.com:443', allowed), true);
    assert.equal(originAllowed('https://console.example.com:8443', allowed), false);
    assert.equal(originAllowed('https://evil.example', allowed), false);
    assert.equal(originAllowed('null', allowed), false);
    assert.equal(originAllowed('file://', allowed), false);
    assert.equal(originAllowed('https://evil.example', ['*']), true);
  });

  it('parses Host headers, including IPv6 and ports', () => {
    assert.equal(hostnameOf('Example.COM:8080'), 'example.com');
    assert.equal(hostnameOf('[::1]:3333'), '::1');
    assert.equal(hostnameOf('[::1]'), '::1');
    assert.equal(hostnameOf('a b'), undefined);
    assert.equal(hostnameOf('[::1]x'), undefined);
    assert.equal(hostnameOf(''), undefined);
  });

  it('refuses a rebinding Host and a missing one', () => {
    const hosts = defaultAllowedHosts({ publicUrl: 'http://127.0.0.1:8080', bindHost: '127.0.0.1' });
    assert.deepEqual(hosts.sort(), ['127.0.0.1', '::1', 'localhost'].sort());
    assert.equal(hostAllowed('localhost:8080', hosts), true);
    assert.equal(hostAllowed('[::1]:8080', hosts), true);
    assert.equal(hostAllowed('attacker.example:8080', hosts), false);
    assert.equal(hostAllowed(undefined, hosts), false);
    assert.equal(hostAllowed('anything', ['*']), true);
  });

  it('derives defaults from the public URL and bind address', () => {
    assert.deepEqual(defaultAllowedHosts({ publicUrl: 'https://atrium.example.com', bindHost: '10.0.0.5', extra: ['Alias.example'] }).sort(), [
      '10.0.0.5',
      'alias.example',
      'atrium.example.com',
    ]);
    assert.ok(defaultAllowedHosts({ publicUrl: 'https://a.example', bindHost: '0.0.0.0' }).includes('localhost'));
    assert.deepEqual(defaultAllowedOrigins({ publicUrl: 'https://atrium.example.com/', extra: ['https://x.example'] }), [
      'https://atrium.example.com',
      'https://x.example',
    ]);
  });
});
