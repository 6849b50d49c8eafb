import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { indexFiles } from '../../src/documents/ann/files.ts';
import { annFlush, annGraph } from '../../src/documents/ann/index.ts';
import { type DocumentsDeps, searchPassages, upsertDocuments, type Viewer } from '../../src/documents/index.ts';
import { annStageKey, annStartsWide } from '../../src/documents/search/ann-plan.ts';
import { ensureVectorIndex, indexName } from '../../src/documents/vectors.ts';
import { type DatabaseExecutor, migrate, openPglite } from '../../src/platform/db/index.ts';
import { openTestPglite, silentLog } from '../support/db.ts';
import { annDeps, corpus, exactDeps, INLINE_MODEL } from './ann-support.ts';

const T = 'default';
const MODEL = INLINE_MODEL.id;

const vectorIds = async (deps: DocumentsDeps, query: string, viewer?: Viewer, limit = 10, tenantId = T) =>
  (await searchPassages(deps, { tenantId, query, limit, mode: 'vector', ...(viewer ? { viewer } : {}) })).map((p) => p.external_id);

async function dbSeqs(db: DatabaseExecutor, tenantId = T): Promise<number[]> {
  const r = await db.query<{ seq: string }>('SELECT seq FROM chunks WHERE tenant_id = $1 AND embedding_model = $2 ORDER BY seq', [tenantId, MODEL]);
  return r.rows.map((x) => Number(x.seq));
}

describe('embedded vector index (usearch) in memory', () => {
  let db: DatabaseExecutor;
  let deps: DocumentsDeps;
  const docs = corpus(1200, 'acl', (i) => (i % 200 === 0 ? { groups: ['rare'] } : i % 25 === 0 ? { groups: ['few'] } : i % 2 === 0 ? { groups: ['half'] } : undefined));
  before(async () => {
    db = await openTestPglite();
    await db.query("INSERT INTO tenants (id, name) VALUES ('other', 'other') ON CONFLICT DO NOTHING");
    await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('src', 'default', 'api', 'src'), ('src2', 'other', 'api', 'src')`);
    deps = annDeps(db);
    for (let i = 0; i < docs.length; i += 300) await upsertDocuments(deps, { tenantId: T, connectorId: 'src', documents: docs.slice(i, i + 300) });
  });
  after(() => db.close());

  it('holds every vector of the tenant, keyed by chunk seq, and builds no pgvector HNSW index', async () => {
    const graph = await annGraph(deps, T, MODEL, 64);
    const seqs = await dbSeqs(db);
    assert.equal(seqs.length, 1200);
    assert.equal(graph.size, seqs.length);
    assert.ok(seqs.every((s) => graph.has(s)));
    const hnsw = await db.query("SELECT 1 FROM pg_indexes WHERE indexname LIKE 'chunks_hnsw_%'");
    assert.equal(hnsw.rows.length, 0);
  });

  it("gives each reader exactly the top k of what they may see, as an exact scan does (ACL as the filter)", async () => {
    const readers: [string, Viewer | undefined][] = [
      ['no ACL or public', undefined],
      ['half the tenant', { principals: ['*', 'public', 'group:half'] }],
      ['4 % of the tenant (restricted only)', { principals: ['group:few'] }],
      ['6 documents', { principals: ['group:rare'] }],
      ['admin bypass', { all: true }],
    ];
    const exact = exactDeps(db);
    for (const q of [docs[3]!.content, docs[50]!.content, docs[400]!.content.split(' ').slice(0, 5).join(' ')]) {
      for (const [who, viewer] of readers) {
        const want = await vectorIds(exact, q, viewer);
        assert.ok(want.length > 0, who);
        assert.deepEqual(await vectorIds(deps, q, viewer), want, `${who}: ${q.slice(0, 30)}`);
      }
    }
    // The rare reader sees 6 documents: all of them, whatever the query.
    assert.deepEqual((await vectorIds(deps, docs[3]!.content, { principals: ['group:rare'] })).sort(), [0, 200, 400, 600, 800, 1000].map((i) => `acl-${i}`).sort());
  });

  it('widens a shallow first stage that came back short, and starts wide for a reader whose first stage mostly is', async () => {
    const exact = exactDeps(db);
    const few: Viewer = { principals: ['group:few'] };
    const half: Viewer = { principals: ['*', 'public', 'group:half'] };
    const keyOf = (viewer: Viewer) => annStageKey({ tenantId: T, query: '', limit: 10, viewer });
    // ~42 of 1,200 documents: the first stage's 400 keys hold ~14 of the 100 the list wants, every time.
    for (const i of [5, 75, 425, 725, 975]) {
      const q = docs[i]!.content;
      assert.deepEqual(await vectorIds(deps, q, few), await vectorIds(exact, q, few), `few: ${i}`);
      assert.deepEqual(await vectorIds(deps, q, half), await vectorIds(exact, q, half), `half: ${i}`);
    }
    assert.equal(annStartsWide(deps.db, keyOf(few)), true);
    assert.equal(annStartsWide(deps.db, keyOf(half)), false);
    // Started wide, the answer is still the exact one.
    assert.deepEqual(await vectorIds(deps, docs[1]!.content, few), await vectorIds(exact, docs[1]!.content, few));
  });

  it('keeps tenants apart: another tenant with the same documents has its own graph and never answers here', async () => {
    await upsertDocuments(deps, { tenantId: 'other', connectorId: 'src2', documents: docs.slice(0, 100) });
    const mine = new Set(await dbSeqs(db));
    const theirs = await annGraph(deps, 'other', MODEL, 64);
    assert.equal(theirs.size, 100);
    for (const k of theirs.keys()) assert.ok(!mine.has(Number(k)), 'no key in both graphs');
    const hits = await searchPassages(deps, { tenantId: 'other', query: docs[3]!.content, limit: 50, mode: 'vector', viewer: { all: true } });
    const ids = hits.map((h) => h.document_id);
    const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE id = ANY($1::text[]) AND tenant_id = $2', [ids, 'other']);
    assert.equal(r.rows[0]?.n, ids.length);
  });

  it('replaces a re-embedded vector under the same seq, and a re-chunked document leaves no key behind', async () => {
    const graph = await annGraph(deps, T, MODEL, 64);
    const before = graph.size;
    // New content: new chunks (new seqs) replace the old ones; the graph follows the commit.
    await upsertDocuments(deps, { tenantId: T, connectorId: 'src', documents: [{ ...docs[7]!, content: 'entirely new words here' }] });
    assert.equal(graph.size, before);
    assert.deepEqual([...graph.keys()].map(Number).sort((a, b) => a - b), await dbSeqs(db));
    assert.equal((await vectorIds(deps, 'entirely new words here', undefined, 1))[0], 'acl-7');
  });

  it('drops an existing pgvector HNSW index of the model once the graph serves it', async () => {
    const fresh = await openTestPglite();
    try {
      await fresh.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('src', 'default', 'api', 'src')`);
      await upsertDocuments(exactDeps(fresh), { tenantId: T, connectorId: 'src', documents: corpus(20, 'h') });
      await ensureVectorIndex(fresh, MODEL, 64);
      const has = async () => (await fresh.query('SELECT 1 FROM pg_indexes WHERE indexname = $1', [indexName(MODEL)])).rows.length;
      assert.equal(await has(), 1);
      assert.equal((await vectorIds(annDeps(fresh), corpus(20, 'h')[4]!.content, undefined, 1))[0], 'h-4');
      assert.equal(await has(), 0);
    } finally {
      await fresh.close();
    }
  });
});

describe('embedded vector index (usearch) in a data folder on disk', () => {
  let root: string;
  let dir: string;
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-ann-'));
    dir = path.join(root, 'data');
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  const open = async () => {
    const db = await openPglite(dir);
    await migrate(db, silentLog);
    return db;
  };

  it('a kill before the index file was saved loses nothing, and deleted documents never come back', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'ann-child.ts')], {
      env: { ...process.env, ANN_DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const signal = await new Promise((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
    assert.equal(signal, 'SIGKILL');
    assert.match(out, /written/);
    const files = indexFiles(dir, T, MODEL);
    const saved = JSON.parse(await fs.readFile(files.sidecar, 'utf8')) as { count: number };
    assert.equal(saved.count, 300, 'the file on disk holds batch a only');

    const db = await open();
    try {
      const deps = annDeps(db);
      const graph = await annGraph(deps, T, MODEL, 64);
      const seqs = await dbSeqs(db);
      assert.equal(seqs.length, 350);
      assert.deepEqual([...graph.keys()].map(Number).sort((a, b) => a - b), seqs, 'reconciled: batch b added, deleted documents removed');
      const b = corpus(100, 'b');
      assert.equal((await vectorIds(deps, b[42]!.content, undefined, 1))[0], 'b-42', 'written before the kill, found after');
      const a = corpus(300, 'a');
      for (const i of [0, 7, 49]) assert.ok(!(await vectorIds(deps, a[i]!.content, undefined, 50)).includes(`a-${i}`), `a-${i} was deleted`);
      assert.equal((await vectorIds(deps, a[120]!.content, undefined, 1))[0], 'a-120');
    } finally {
      await db.close();
    }
    const after = JSON.parse(await fs.readFile(indexFiles(dir, T, MODEL).sidecar, 'utf8')) as { count: number };
    assert.equal(after.count, 350, 'a clean close saves the reconciled graph');
  });

  it('answers the same after a restart, from the saved file', async () => {
    const queries = [corpus(300, 'a')[200]!.content, corpus(100, 'b')[5]!.content, 'w1x1 w2x2'];
    const first = await open();
    const answers = [];
    for (const q of queries) answers.push(await vectorIds(annDeps(first), q));
    await first.close();
    const second = await open();
    try {
      for (const [i, q] of queries.entries()) assert.deepEqual(await vectorIds(annDeps(second), q), answers[i]);
    } finally {
      await second.close();
    }
  });

  it('rebuilds a corrupt index file from the database (usearch never sees it)', async () => {
    const files = indexFiles(dir, T, MODEL);
    const q = corpus(100, 'b')[9]!.content;
    const first = await open();
    const want = await vectorIds(annDeps(first), q);
    await first.close();
    const bytes = await fs.readFile(files.index);
    bytes.fill(0x41, 64, 4096);
    await fs.writeFile(files.index, bytes);
    const db = await open();
    try {
      const graph = await annGraph(annDeps(db), T, MODEL, 64);
      assert.equal(graph.size, 350);
      assert.deepEqual(await vectorIds(annDeps(db), q), want);
      await annFlush(db);
    } finally {
      await db.close();
    }
    assert.notDeepEqual(await fs.readFile(files.index), bytes, 'the rebuilt graph was saved over the damaged file');
  });
});
