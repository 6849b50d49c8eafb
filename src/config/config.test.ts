import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './index.ts';

describe('config', () => {
  it('works with zero settings: embedded storage on loopback:8080', () => {
    const c = loadConfig({});
    assert.equal(c.storage, 'pglite');
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 8080);
    assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
    assert.ok(Object.isFrozen(c));
  });

  it('selects PostgreSQL when DATABASE_URL is set and treats empty values as unset', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@localhost/db', PORT: '', LOG_LEVEL: 'warn' });
    assert.equal(c.storage, 'postgres');
    assert.equal(c.port, 8080);
    assert.equal(c.logLevel, 'warn');
  });

  it('names the setting that is wrong', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/);
    assert.throws(() => loadConfig({ ATRIUM_ROLE: 'boss' }), /ATRIUM_ROLE/);
    // An OAuth authorization URL is shown as a link and followed by the user's browser: http(s) only.
    const client = (authorize_url: string) => JSON.stringify({ github: { client_id: 'id', client_secret: 'secret', authorize_url } });
    assert.throws(() => loadConfig({ ATRIUM_OAUTH_CLIENTS: client('javascript:alert(1)') }), /ATRIUM_OAUTH_CLIENTS/);
    assert.equal(loadConfig({ ATRIUM_OAUTH_CLIENTS: client('https://github.example/login/oauth/authorize') }).connectors.oauthClients.github?.authorize_url, 'https://github.example/login/oauth/authorize');
  });
});
