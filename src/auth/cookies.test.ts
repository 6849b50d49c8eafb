import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCookie, serializeCookie } from './cookies.ts';

describe('cookies', () => {
  it('serializes HttpOnly, Secure, SameSite=Lax with Max-Age, and clears with Max-Age=0', () => {
    assert.equal(serializeCookie('atrium_session', 'a b', { maxAgeSeconds: 60 }), 'atrium_session=a%20b; Path=/; Max-Age=60; HttpOnly; Secure; SameSite=Lax');
    assert.match(serializeCookie('x', '', { maxAgeSeconds: 0, path: '/v1/auth' }), /^x=; Path=\/v1\/auth; Max-Age=0; HttpOnly; Secure; SameSite=Lax; Expires=Thu, 01 Jan 1970/);
  });
  it('reads one cookie among several, tolerating junk', () => {
    assert.equal(readCookie('a=1; atrium_session=tok%2Fen; b', 'atrium_session'), 'tok/en');
    assert.equal(readCookie('xatrium_session=1', 'atrium_session'), undefined);
    assert.equal(readCookie('atrium_session=%E0%A4%A', 'atrium_session'), undefined);
    assert.equal(readCookie(undefined, 'a'), undefined);
  });
});
