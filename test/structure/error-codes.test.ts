import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ERRORS_DOC, errorsPage } from '../../scripts/error-table.ts';
import { PROBLEMS } from '../../src/auth/problems.ts';
import { ERROR_CODES, ERROR_FAMILIES } from '../../src/platform/errors.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n)) : n.endsWith('.ts') && !n.endsWith('.test.ts') ? [path.join(dir, n)] : []));

describe('error catalogue', () => {
  it('lists every code, with its status', () => {
    assert.deepEqual(Object.keys(ERROR_CODES).sort(), [
      'bad_request', 'conflict', 'egress_denied', 'embedding_model_unavailable', 'embedding_provider_error', 'embedding_provider_rejected',
      'federation_failed', 'host_not_allowed', 'intent_not_understood', 'internal_error', 'invalid_action_parameters', 'invalid_request',
      'invalid_signature', 'json_too_deep', 'malformed_json', 'no_actions', 'no_credentials', 'not_found', 'oauth_not_configured',
      'oauth_unsupported', 'origin_not_allowed', 'payload_too_large', 'permission_denied', 'rate_limited', 'resource_not_found',
      'route_not_found', 'service_unavailable', 'timeout', 'too_many_failed_attempts', 'tool_not_found', 'unauthenticated',
      'unknown_action', 'unsupported_media_type', 'upstream_error', 'webhook_secret_missing', 'webhook_unsupported',
    ]);
    for (const [code, e] of Object.entries(ERROR_CODES)) assert.ok(e.status >= 400 && e.status < 600, code);
  });

  it('every literal code the source raises is catalogued (or of a catalogued family)', () => {
    const known = (c: string) => c in ERROR_CODES || ERROR_FAMILIES.some((f) => c.startsWith(f));
    const raised = files(SRC).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/(?:new AppError|unprocessable)\(\s*'([a-z_]+)'/g)].map((m) => m[1] ?? ''));
    assert.ok(raised.length > 10);
    assert.deepEqual(raised.filter((c) => !known(c)), []);
    assert.deepEqual(Object.keys(PROBLEMS).filter((c) => !known(c)), [], 'SSO problems are of the sso_/saml_/oidc_ families');
  });

  it('docs/errors.md is current (regenerate with `node --import tsx scripts/error-table.ts`)', () => {
    assert.equal(readFileSync(ERRORS_DOC, 'utf8'), errorsPage());
  });
});
