import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { type DocumentsDeps, searchPassages, upsertDocuments } from '../../src/documents/index.ts';
import { addTermStats, lockTenantStats } from '../../src/documents/stats.ts';
import { type DatabaseExecutor, MIGRATIONS_DIR, migrate, openPglite } from '../../src/platform/db/index.ts';
import { openTestPostgres, silentLog } from '../support/db.ts';
import { impactListsAreConsistent } from './store-suite.ts';

const T = 'default';
const SRC = 'api-old';
const OLD = [
  { id: 'doc_old1', ext: 'old1', title: 'Espresso', content: 'Tamp the espresso grounds firmly before pulling the shot.' },
  { id: 'doc_old2', ext: 'old2', title: 'Grinder', content: 'Burr grinders give an even grind for espresso and filter coffee.' },
];

/** The migrations before issue 29's chunk layout (105), in a folder of their own. */
async function migrationsBefore105(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-mig-'));
  for (const f of await fs.readdir(MIGRATIONS_DIR)) {
    if (/^\d+_/.test(f) && Number(f.slice(0, f.indexOf('_'))) < 105) await fs.copyFile(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  }
  return dir;
}

/** Documents and chunks as the store wrote them before migration 105: a tsvector per chunk, the text in both tables. */
async function writeOldLayout(db: DatabaseExecutor): Promise<void> {
  await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, $2, 'api', 'old')`, [SRC, T]);
  await db.transaction(async (tx) => {
    await lockTenantStats(tx, T);
    for (const d of OLD) {
      await tx.query(
        `INSERT INTO documents (id, tenant_id, source_node, external_id, title, content, content_hash, fields_hash) VALUES ($1, $2, $3, $4, $5, $6, 'h', 'h')`,
        [d.id, T, SRC, d.ext, d.title, d.content],
      );
      await tx.query(
        `INSERT INTO chunks (id, tenant_id, document_id, ordinal, content, fts, terms, tfs, length)
         SELECT $1, $2, $3, 0, $5, v.fts, tsvector_to_array(v.fts), t.tfs, (SELECT coalesce(sum(f), 0) FROM unnest(t.tfs) f)
         FROM (SELECT setweight(to_tsvector('english', $4), 'A') || to_tsvector('english', $5) AS fts) v
         CROSS JOIN LATERAL (SELECT ARRAY(SELECT least(coalesce(array_length(u.positions, 1), 1), 32767)::smallint FROM unnest(v.fts) u) AS tfs) t`,
        [`chk_${d.ext}`, T, d.id, d.title, d.content],
      );
    }
    await addTermStats(tx, T, OLD.map((d) => d.id));
  });
}

function upgradeSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>): void {
  describe(`chunk storage upgrade (migration 105) on ${name}`, () => {
    let handle: { db: DatabaseExecutor; close(): Promise<void> } | undefined;
    after(() => handle?.close());

    it('keeps a folder written before it searchable, writable and consistent', async () => {
      handle = await open();
      const { db } = handle;
      const dir = await migrationsBefore105();
      await migrate(db, silentLog, dir);
      await fs.rm(dir, { recursive: true, force: true });
      await writeOldLayout(db);
      const applied = await migrate(db, silentLog);
      assert.ok(applied.includes('105_chunk_storage'), applied.join(', '));
      const deps: DocumentsDeps = { db, log: silentLog };

      // The old chunks are found through the impact lists and through the GIN index on terms, with their own text.
      for (const lexicalPath of ['impact', 'exhaustive'] as const) {
        const hits = await searchPassages(deps, { tenantId: T, query: 'tamp espresso', limit: 5, mode: 'lexical', lexicalPath });
        assert.equal(hits[0]?.external_id, 'old1', lexicalPath);
        assert.equal(hits[0]?.content, OLD[0]?.content);
      }
      // A new one-chunk document keeps its text once; search reads it from the document.
      const content = 'Descale the espresso machine every month with citric acid.';
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [{ external_id: 'new1', title: 'Care', content }] });
      const stored = await db.query<{ content: string | null }>(`SELECT c.content FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'new1'`);
      assert.deepEqual(stored.rows, [{ content: null }]);
      const hit = await searchPassages(deps, { tenantId: T, query: 'descale citric', limit: 1, mode: 'lexical', lexicalPath: 'exhaustive' });
      assert.equal(hit[0]?.content, content);
      // An old document re-chunked by a push: its old chunk's statistics come off, the new ones go on.
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [{ external_id: 'old2', title: 'Grinder', content: 'Blade grinders chop unevenly.' }] });
      assert.equal((await searchPassages(deps, { tenantId: T, query: 'burr', limit: 5, mode: 'lexical' })).length, 0);
      assert.equal((await searchPassages(deps, { tenantId: T, query: 'blade', limit: 5, mode: 'lexical' }))[0]?.external_id, 'old2');
      const drift = await db.query(
        `WITH truth AS (SELECT c.tenant_id, u.term, count(*)::int AS df FROM chunks c, unnest(c.terms) u(term) GROUP BY 1, 2)
         SELECT coalesce(t.term, s.term) AS term FROM truth t FULL JOIN chunk_term_stats s ON s.tenant_id = t.tenant_id AND s.term = t.term
         WHERE t.df IS DISTINCT FROM s.df`,
      );
      assert.deepEqual(drift.rows, [], 'document frequencies match the chunks');
      await impactListsAreConsistent(db);
    });
  });
}

upgradeSuite('PGlite', async () => {
  const db = await openPglite('memory://');
  return { db, close: () => db.close() };
});

upgradeSuite('PostgreSQL', async () => {
  const pg = await openTestPostgres();
  // openTestPostgres migrates to the newest schema: start this one over from an empty database.
  await pg.db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  return { db: pg.db, close: () => pg.drop() };
});
