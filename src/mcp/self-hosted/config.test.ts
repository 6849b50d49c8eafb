import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSelfHostedConfig } from './config.ts';

describe('self-hosted MCP config', () => {
  it('applies the spec defaults and takes the key from ATRIUM_API_KEY', () => {
    const c = parseSelfHostedConfig({ service_base_url: 'https://atrium.example.com' }, { ATRIUM_API_KEY: 'atr_0123456789abcdef' });
    assert.equal(c.port, 3333);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.rate_limit.requests_per_minute, 60);
    assert.deepEqual(c.allowed_origins, []);
    assert.equal(c.service_api_key, 'atr_0123456789abcdef');
  });

  it('prefers the file, and fills the rest from the environment', () => {
    const c = parseSelfHostedConfig(
      { port: 4000, service_api_key: 'atr_from_the_file_000', rate_limit: { requests_per_minute: 5 } },
      { ATRIUM_API_KEY: 'atr_from_env_0000000', ATRIUM_SERVICE_BASE_URL: 'http://10.0.0.2:8080', ATRIUM_MCP_ALLOWED_ORIGINS: 'https://a.example, https://b.example' },
    );
    assert.equal(c.port, 4000);
    assert.equal(c.service_api_key, 'atr_from_the_file_000');
    assert.equal(c.service_base_url, 'http://10.0.0.2:8080');
    assert.deepEqual(c.allowed_origins, ['https://a.example', 'https://b.example']);
    assert.equal(c.rate_limit.requests_per_minute, 5);
  });

  it('names what is wrong', () => {
    assert.throws(() => parseSelfHostedConfig({ service_base_url: 'https://a.example' }, {}), /service_api_key is missing/);
    assert.throws(() => parseSelfHostedConfig({ service_api_key: 'atr_0123456789abcdef' }, {}), /service_base_url/);
    assert.throws(() => parseSelfHostedConfig({ service_base_url: 'ftp://x', service_api_key: 'atr_0123456789abcdef' }, {}), /service_base_url/);
    assert.throws(() => parseSelfHostedConfig({ service_base_url: 'https://a.example', service_api_key: 'atr_0123456789abcdef', prot: 1 }, {}), /prot/);
    assert.throws(() => parseSelfHostedConfig({ service_base_url: 'https://a.example', service_api_key: 'atr_0123456789abcdef', port: 'x' }, {}), /port/);
  });
});
