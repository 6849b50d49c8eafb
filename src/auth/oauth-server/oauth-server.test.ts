import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withParams } from './authorize.ts';
import { redirectUriProblem } from './clients.ts';
import { bearerChallenge } from './metadata.ts';
import { grantablePermissions } from './grants.ts';
import { isAccessToken, newSecret, PKCE_PATTERN, s256 } from './tokens.ts';

describe('oauth-server helpers', () => {
  it('accepts https and loopback http redirect URIs only', () => {
    for (const ok of ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/cb', 'http://localhost/cb', 'http://[::1]:8080/x?y=1']) {
      assert.equal(redirectUriProblem(ok), null, ok);
    }
    for (const bad of ['http://claude.ai/cb', 'cursor://anysphere/cb', 'https://a.example/cb#x', 'https://u:p@a.example/cb', '/relative', 'http://127.0.0.1.evil.example/cb']) {
      assert.notEqual(redirectUriProblem(bad), null, bad);
    }
  });

  it('computes the RFC 7636 S256 challenge (appendix B vector)', () => {
    assert.equal(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.ok(PKCE_PATTERN.test('a'.repeat(43)));
    assert.ok(!PKCE_PATTERN.test('a'.repeat(42)));
    assert.ok(!PKCE_PATTERN.test(`${'a'.repeat(42)}+`));
  });

  it('keeps existing query parameters of a redirect URI and adds the answer', () => {
    assert.equal(withParams('https://c.example/cb?x=1', { code: 'abc', state: null }), 'https://c.example/cb?x=1&code=abc');
  });

  it('never grants act_as; tokens are recognisable and unguessable', () => {
    assert.deepEqual(grantablePermissions(['query', 'act_as', 'admin', 'query']), ['admin', 'query']);
    const t = newSecret('mcp_at_');
    assert.ok(isAccessToken(t));
    assert.ok(!isAccessToken('atr_abc'));
    assert.equal(t.length, 7 + 43);
    assert.equal(bearerChallenge('https://x/.well-known/oauth-protected-resource/v1/expose/mcp', 'invalid_token'), 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource/v1/expose/mcp", scope="mcp", error="invalid_token"');
  });
});
