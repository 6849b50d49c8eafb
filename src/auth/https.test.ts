import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSecureTransport } from './https.ts';

describe('isSecureTransport', () => {
  const dev = 'http://127.0.0.1:8080';
  const prod = 'https://atrium.example.com';
  it('accepts https always', () => {
    assert.equal(isSecureTransport({ protocol: 'https', remoteAddress: '198.51.100.1', publicUrl: prod }), true);
  });
  it('accepts plain http only from loopback when the public URL is loopback (development)', () => {
    for (const addr of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.equal(isSecureTransport({ protocol: 'http', remoteAddress: addr, publicUrl: dev }), true);
    assert.equal(isSecureTransport({ protocol: 'http', remoteAddress: '127.0.0.1', publicUrl: 'http://localhost:8080' }), true);
    assert.equal(isSecureTransport({ protocol: 'http', remoteAddress: '10.1.2.3', publicUrl: dev }), false);
    assert.equal(isSecureTransport({ protocol: 'http', remoteAddress: undefined, publicUrl: dev }), false);
  });
  it('refuses plain http when the service is public, even from loopback', () => {
    assert.equal(isSecureTransport({ protocol: 'http', remoteAddress: '127.0.0.1', publicUrl: prod }), false);
    assert.equal(isSecureTransport({ protocol: 'http', remoteAddress: '127.0.0.1', publicUrl: 'http://atrium.internal:8080' }), false);
  });
});
