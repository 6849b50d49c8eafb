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
  });
});
