import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { createRuntime } from '../../src/main/runtime.ts';
import { silentLog } from '../support/db.ts';

describe('the bootstrap key (ATRIUM_ADMIN_API_KEY)', () => {
  let dataDir = '';
  after(async () => {
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('works only while the process is started with the variable: removing it ends the key, setting it again restores it', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-bootstrap-'));
    const KEY = 'atr_bootstrap_test_key_0123456789';
    /** Starts the runtime on the data dir with (or without) the variable and asks GET /v1/api-keys with the key. */
    const status = async (env: Record<string, string>) => {
      const rt = await createRuntime(loadConfig({ ATRIUM_DATA_DIR: dataDir, ATRIUM_SECRET_KEY: 'bootstrap-test-secret', LOG_LEVEL: 'silent', ATRIUM_SYNC_SCHEDULER: 'false', ...env }), silentLog);
      try {
        return (await rt.app.inject({ method: 'GET', url: '/v1/api-keys', headers: { authorization: `Bearer ${KEY}` } })).statusCode;
      } finally {
        await rt.close();
      }
    };
    assert.equal(await status({ ATRIUM_ADMIN_API_KEY: KEY }), 200);
    assert.equal(await status({}), 401, 'started without the variable');
    assert.equal(await status({ ATRIUM_ADMIN_API_KEY: KEY }), 200, 'the stored key is restored with the variable');
    assert.equal(await status({ ATRIUM_ADMIN_API_KEY: 'atr_another_bootstrap_key_987654321' }), 401, 'a changed variable replaces the key');
  });
});
