import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
// @ts-expect-error: a plain ES module of the build tooling (scripts/build-server.mjs), typed by its use here
import { buildServer, compiledBuild, startEntry } from '../../scripts/build-server.mjs';
import { spawnServer } from '../support/spawn.ts';

type Entry = { entry: string | null; reason: string | null };
const build = buildServer as (where: { root?: string; outDir?: string }) => Promise<{ inputs: number }>;
const check = compiledBuild as (where: { root?: string; outDir?: string }) => Entry;
const choose = startEntry as (env: Record<string, string | undefined>, where: { root?: string; outDir?: string }) => Entry;
const ROOT = path.resolve(import.meta.dirname, '../..');

// scripts/build-server.mjs and bin/atrium's choice between dist/atrium.js and the sources (issue 29).
describe('the compiled build', () => {
  let root: string;
  before(async () => {
    // A project of its own: the entry imports a module that finds files from import.meta.url / dirname.
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-build-'));
    await fs.mkdir(path.join(root, 'src/cli'), { recursive: true });
    await fs.mkdir(path.join(root, 'src/platform/deep'), { recursive: true });
    await fs.writeFile(path.join(root, 'data.txt'), 'found by url');
    await fs.writeFile(
      path.join(root, 'src/platform/deep/where.ts'),
      "import { readFileSync } from 'node:fs';\nimport path from 'node:path';\n" +
        "export const byUrl: string = readFileSync(new URL('../../../data.txt', import.meta.url), 'utf8');\n" +
        "export const byDir: string = readFileSync(path.join(import.meta.dirname, '../../../data.txt'), 'utf8');\n",
    );
    await fs.writeFile(path.join(root, 'src/cli/main.ts'), "import { byDir, byUrl } from '../platform/deep/where.ts';\nconst n: number = 2;\nconsole.log([byUrl, byDir, n].join('|'));\n");
  });
  after(async () => fs.rm(root, { recursive: true, force: true }));

  it('is missing until built, then runs with every module seeing its own source location', async () => {
    assert.match(check({ root }).reason ?? '', /no compiled build/);
    const r = await build({ root });
    assert.ok(r.inputs >= 3, 'main.ts, where.ts and the build script');
    const fresh = check({ root });
    assert.ok(fresh.entry, fresh.reason ?? '');
    const run = spawnSync(process.execPath, [fileURLToPath(fresh.entry)], { encoding: 'utf8' });
    assert.equal(run.stdout.trim(), 'found by url|found by url|2', run.stderr);
  });

  it('stays fresh when only an mtime moves, and goes stale when a source changes, disappears or the output is touched', async () => {
    const where = path.join(root, 'src/platform/deep/where.ts');
    const text = await fs.readFile(where, 'utf8');
    const later = new Date(Date.now() + 60_000);
    await fs.utimes(where, later, later);
    assert.ok(check({ root }).entry, 'a checkout that rewrote the same bytes');

    await fs.writeFile(where, `${text}// edited\n`);
    assert.match(check({ root }).reason ?? '', /src\/platform\/deep\/where\.ts changed since the build/);
    await fs.writeFile(where, text.replace("'utf8'", "'UTF8'"));
    assert.match(check({ root }).reason ?? '', /changed since the build/, 'same size, other bytes');
    await fs.writeFile(where, text);
    assert.ok(check({ root }).entry);

    await fs.rename(where, `${where}.moved`);
    assert.match(check({ root }).reason ?? '', /is gone since the build/);
    await fs.rename(`${where}.moved`, where);

    await fs.appendFile(path.join(root, 'dist/atrium.js'), '\n');
    assert.match(check({ root }).reason ?? '', /changed after the build/);
    await build({ root });
    assert.ok(check({ root }).entry);
  });

  it('is what bin/atrium runs only while fresh and not told to run the sources', () => {
    assert.ok(choose({}, { root }).entry);
    assert.equal(choose({ ATRIUM_FROM_SOURCE: '1' }, { root }).entry, null);
    assert.equal(choose({}, { root, outDir: path.join(root, 'nowhere') }).entry, null);
  });
});


/** Waits (up to a minute) for the 'atrium started' line, which may follow the first answers. */
async function startedLog(server: { output(): string }): Promise<{ code?: string; stages?: Record<string, number> }> {
  const deadline = Date.now() + 60_000;
  while (!server.output().includes('"atrium started"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return startedLine(server.output());
}

const startedLine = (out: string) => JSON.parse(out.split('\n').find((l) => l.includes('"atrium started"')) ?? '{}') as { code?: string; stages?: Record<string, number> };

describe('a search right after start (sources, then the compiled build of this checkout)', () => {
  const KEY = 'atr_compiled_build_admin_key_abcdefghijklmnop';
  let dataDir: string;
  let outDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-coldstart-'));
    // Inside the checkout, so the bundle resolves node_modules; never the dist/ that bin/atrium uses.
    outDir = await fs.mkdtemp(path.join(ROOT, '.cache', 'compiled-test-'));
    await build({ outDir });
  });
  after(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(outDir, { recursive: true, force: true });
  });

  const call = async (url: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${url}${p}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${p}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  it('answers hybrid and vector searches at once, loading the model once', async () => {
    const env = { ATRIUM_DATA_DIR: dataDir, ATRIUM_ADMIN_API_KEY: KEY, ATRIUM_SYNC_SCHEDULER: 'false' };
    const first = await spawnServer({ ...env, ATRIUM_FROM_SOURCE: '1' }, 120_000);
    try {
      const c = (await call(first.url, 'POST', '/v1/connectors', { connector_type: 'api', display_name: 'cold start' })) as { connector_id: string };
      await call(first.url, 'POST', `/v1/connectors/${c.connector_id}/documents`, {
        documents: [
          { external_id: 'coffee', title: 'Descaling the espresso machine', content: 'Run citric acid through the boiler of the espresso machine every month.' },
          { external_id: 'wing', title: 'Aircraft wing loads', content: 'Lift and drag over the wing of an aircraft at high angles of attack.' },
          { external_id: 'leave', title: 'Parental leave policy', content: 'Employees may take sixteen weeks of paid parental leave.' },
        ],
      });
      assert.equal((await startedLog(first)).code, 'source');
    } finally {
      await first.stop();
    }

    const second = await spawnServer(env, 120_000, [], path.join(outDir, 'atrium.js'));
    try {
      // Straight after /v1/health: three at once, while the default model may still be loading.
      const [hybrid, vector, plane] = await Promise.all([
        call(second.url, 'POST', '/v1/search', { query: 'espresso boiler', mode: 'hybrid', limit: 3 }),
        call(second.url, 'POST', '/v1/search', { query: 'coffee', mode: 'vector', limit: 3 }),
        call(second.url, 'POST', '/v1/search', { query: 'airplane', mode: 'vector', limit: 3 }),
      ]);
      type P = { external_id: string; semantic_score: number | null };
      const top = (r: Record<string, unknown>) => (r.passages as P[])[0];
      assert.equal(top(hybrid)?.external_id, 'coffee');
      assert.notEqual(top(hybrid)?.semantic_score, null, 'the hybrid answer used the query vector');
      assert.equal(top(vector)?.external_id, 'coffee', 'no shared word: found by its vector');
      assert.equal(top(plane)?.external_id, 'wing');
      const started = await startedLog(second);
      assert.equal(started.code, 'compiled');
      assert.deepEqual(Object.keys(started.stages ?? {}).sort(), ['composeMs', 'listenMs', 'migrateMs', 'openMs']);
    } finally {
      await second.stop();
    }
    const out = second.output();
    assert.equal(out.split('\n').filter((l) => l.includes('"embedding model loaded"')).length, 1, out);
  });
});
