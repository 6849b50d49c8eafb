import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VECTORS_DIR } from '../../src/documents/ann/index.ts';
import { openPglite } from '../../src/platform/db/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const doc = (i: number) => ({
  external_id: `kb-${i}`,
  title: `Note ${i}`,
  content: [
    'The espresso machine needs descaling every month and fresh beans.',
    'Quarterly revenue grew in the northern sales region.',
    'The vacation policy grants twenty days of paid leave.',
    'Kubernetes pods restart when the liveness probe fails.',
  ][i % 4]!.concat(` Reference ${i}.`),
});

/** Everything under `<data>/vectors`, relative to the data folder. */
async function vectorFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(path.join(d, e.name));
      else out.push(path.relative(dir, path.join(d, e.name)));
    }
  };
  await walk(path.join(dir, VECTORS_DIR));
  return out.sort();
}

describe('embedded vector index through the service, a data folder on disk', () => {
  let root: string;
  let dir: string;
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-ann-http-'));
    dir = path.join(root, 'data');
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  const start = async (folder: string, loadDataDir?: Blob): Promise<TestApp> => {
    const db = await openPglite(folder, loadDataDir ? { loadDataDir } : {});
    return createTestApp({ db });
  };
  const search = async (t: TestApp, query: string, mode = 'vector') => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/search', headers: t.admin, payload: { query, mode, limit: 5 } });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().passages as { external_id: string }[]).map((p) => p.external_id);
  };
  const push = async (t: TestApp, docs: unknown[]) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/connectors/api/documents', headers: t.admin, payload: { documents: docs } });
    assert.equal(res.statusCode, 200, res.body);
  };

  it('pushed documents are found by meaning, across a restart, and a backup carries the index (restore starts warm)', async () => {
    let t = await start(dir);
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('api', 'default', 'api', 'api', 'connected')`);
    await push(t, Array.from({ length: 40 }, (_, i) => doc(i)));
    const byMeaning = await search(t, 'holiday leave for employees');
    assert.ok(byMeaning.length > 0 && byMeaning.every((id) => Number(id.slice(3)) % 4 === 2), `vacation notes first: ${byMeaning}`);
    const hybrid = await search(t, 'coffee beans descaling', 'hybrid');
    assert.equal(Number(hybrid[0]!.slice(3)) % 4, 0);
    await t.close();
    const files = await vectorFiles(dir);
    assert.equal(files.length, 3, `one graph, its keys and its sidecar: ${files}`);
    assert.ok(files.every((f) => f.startsWith(`${VECTORS_DIR}/default/`)));

    t = await start(dir);
    assert.deepEqual(await search(t, 'holiday leave for employees'), byMeaning, 'the same answer after a restart');
    const backup = await t.app.inject({ method: 'GET', url: '/v1/admin/backup', headers: t.admin });
    assert.equal(backup.statusCode, 200);
    const tar = backup.rawPayload;
    assert.ok(tar.includes(Buffer.from(`${VECTORS_DIR}/default/`)), 'the backup holds the vector index files');
    // Written after the backup: gone after the restore, and no key of it may surface.
    await push(t, [{ external_id: 'late', title: 'Late', content: 'Paid leave and vacation days for every employee, the late policy.' }]);
    assert.ok((await search(t, 'vacation days for every employee')).includes('late'));
    await t.close();

    const restored = path.join(root, 'restored');
    const r = await start(restored, new Blob([new Uint8Array(tar)]));
    try {
      assert.equal((await vectorFiles(restored)).length, 3, 'restored with the folder');
      const answer = await search(r, 'vacation days for every employee');
      assert.ok(answer.length > 0 && !answer.includes('late'), `only what the backup held: ${answer}`);
      assert.deepEqual(await search(r, 'holiday leave for employees'), byMeaning);
    } finally {
      await r.close();
    }
  });
});
