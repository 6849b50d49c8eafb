import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ALL_DOCUMENTS,
  type DocumentsDeps,
  EVERYONE,
  getDocument,
  personPrincipals,
  searchPassages,
  upsertDocuments,
  type Viewer,
} from '../../src/documents/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { silentLog } from '../support/db.ts';
import { hashEmbedder, registryOf } from './hash-embedder.ts';

const T = 'default';
const SRC = 'acl-suite';

/** Every document says "budget", so a reader's result count is exactly the number of documents they may read. */
const docs = [
  { external_id: 'open', title: 'Open budget', content: 'The budget for the open plan office.', acl: null },
  { external_id: 'pub', title: 'Public budget', content: 'The public budget summary for everyone.', acl: { public: true } },
  { external_id: 'eng', title: 'Engineering budget', content: 'The engineering budget in the private channel.', acl: { groups: ['slack:C_ENG'] } },
  { external_id: 'ada', title: 'Ada budget', content: 'Ada personal budget notes, the salary budget.', acl: { users: ['Ada@Acme.test'] } },
  { external_id: 'dom', title: 'Acme budget', content: 'The acme staff budget by domain.', acl: { domain: ['acme.test'] } },
  { external_id: 'nobody', title: 'Sealed budget', content: 'A budget nobody was granted.', acl: {} },
  { external_id: 'legacy', title: 'Legacy budget', content: 'A budget stored in the older slack form.', acl: null },
];

const ada: Viewer = { principals: personPrincipals({ email: 'ada@acme.test', groups: [] }) };
const bob: Viewer = { principals: personPrincipals({ email: 'bob@other.test', groups: ['slack:C_ENG'] }) };

/**
 * Permission-aware retrieval on one storage engine: the ACL is applied in the statement that selects candidates
 * (lexical, vector, hybrid), so a reader's top-k, count and scores hold only documents they may read.
 */
export function aclStorageSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>): void {
  describe(`permission-aware retrieval on ${name}`, () => {
    let db: DatabaseExecutor;
    let close: () => Promise<void>;
    let deps: DocumentsDeps;
    before(async () => {
      ({ db, close } = await open());
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, 'default', 'api', 'acl')`, [SRC]);
      deps = { db, log: silentLog, embeddings: registryOf(hashEmbedder('test/hash-64d', 64)), hnswMinVectors: 0 };
    });
    after(() => close());

    const ids = async (viewer: Viewer | undefined, mode: 'hybrid' | 'lexical' | 'vector' = 'hybrid', limit = 10) =>
      (await searchPassages(deps, { tenantId: T, query: 'budget', limit, mode, ...(viewer ? { viewer } : {}) })).map((p) => p.external_id).sort();

    it('a tenant without restricted documents is searched unfiltered, and everyone sees it all', async () => {
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [docs[0]!], embed: 'inline' });
      assert.deepEqual(await ids(undefined), ['open']);
    });

    it('a restricted document stored after an unfiltered search is hidden from the very next query (the "none restricted" answer ends with the write)', async () => {
      assert.deepEqual(await ids(undefined, 'lexical'), ['open']);
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [docs[2]!], embed: 'inline' });
      assert.deepEqual(await ids(undefined, 'lexical'), ['open']);
      assert.deepEqual(await ids(bob, 'lexical'), ['eng', 'open']);
      assert.deepEqual(await ids(ALL_DOCUMENTS, 'lexical'), ['eng', 'open']);
    });

    it('computes acl_principals from the stored ACL (generated column), the older connector forms included', async () => {
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: docs, embed: 'inline' });
      await db.query(`UPDATE documents SET acl = '{"visibility":"private","channel":"C_ENG"}'::jsonb WHERE external_id = 'legacy'`);
      const r = await db.query<{ external_id: string; acl_principals: string[] }>('SELECT external_id, acl_principals FROM documents WHERE tenant_id = $1 ORDER BY external_id', [T]);
      assert.deepEqual(Object.fromEntries(r.rows.map((x) => [x.external_id, x.acl_principals])), {
        ada: ['user:ada@acme.test'],
        dom: ['domain:acme.test'],
        eng: ['group:slack:C_ENG'],
        legacy: ['group:slack:C_ENG'],
        nobody: [],
        open: ['*'],
        pub: ['public'],
      });
    });

    for (const mode of ['hybrid', 'lexical', 'vector'] as const) {
      it(`${mode}: each reader gets exactly the documents they may read`, async () => {
        assert.deepEqual(await ids(undefined, mode), ['open', 'pub'], 'no viewer = everyone: no ACL or public');
        assert.deepEqual(await ids(EVERYONE, mode), ['open', 'pub']);
        assert.deepEqual(await ids(ada, mode), ['ada', 'dom', 'open', 'pub']);
        assert.deepEqual(await ids(bob, mode), ['eng', 'legacy', 'open', 'pub']);
        assert.deepEqual(await ids(ALL_DOCUMENTS, mode), ['ada', 'dom', 'eng', 'legacy', 'nobody', 'open', 'pub']);
      });
    }

    it("top-k is the reader's top-k: hidden documents take no slot and leave no score", async () => {
      // "salary budget" ranks Ada's note first for whoever may read it; for Bob the 2 slots go to his own.
      const top = async (viewer: Viewer) => (await searchPassages(deps, { tenantId: T, query: 'salary budget', limit: 2, viewer, mode: 'lexical' })).map((p) => p.external_id);
      assert.equal((await top(ada))[0], 'ada');
      const forBob = await top(bob);
      assert.equal(forBob.length, 2);
      assert.ok(!forBob.includes('ada'));
      // Only a hidden document matches "salary": nothing at all, not an empty-scored row.
      const salary = await searchPassages(deps, { tenantId: T, query: 'salary', limit: 5, viewer: bob, mode: 'lexical' });
      assert.deepEqual(salary, []);
    });

    it('with other filters, the ACL still applies on every path (sources, document types)', async () => {
      const r = await searchPassages(deps, { tenantId: T, query: 'budget', limit: 10, viewer: bob, sources: [SRC], filters: { document_types: ['page'] } });
      assert.deepEqual(r.map((p) => p.external_id).sort(), ['eng', 'legacy', 'open', 'pub']);
      const exhaustive = await searchPassages(deps, { tenantId: T, query: 'budget', limit: 10, viewer: ada, mode: 'lexical', lexicalPath: 'exhaustive' });
      assert.deepEqual(exhaustive.map((p) => p.external_id).sort(), ['ada', 'dom', 'open', 'pub']);
    });

    it('getDocument answers null for a document the reader may not read', async () => {
      const r = await db.query<{ id: string; external_id: string }>('SELECT id, external_id FROM documents WHERE tenant_id = $1', [T]);
      const id = (x: string) => r.rows.find((row) => row.external_id === x)!.id;
      assert.equal(await getDocument(db, T, id('ada'), bob), null);
      assert.equal(await getDocument(db, T, id('ada')), null, 'default: everyone');
      assert.equal((await getDocument(db, T, id('ada'), ada))?.external_id, 'ada');
      assert.equal((await getDocument(db, T, id('nobody'), ALL_DOCUMENTS))?.external_id, 'nobody');
      assert.equal((await getDocument(db, T, id('pub'), EVERYONE))?.external_id, 'pub');
    });

    it('a changed ACL takes effect on the next query (no stale principal column)', async () => {
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [{ ...docs[2]!, acl: { groups: ['slack:C_OTHER'] } }], embed: 'inline' });
      assert.ok(!(await ids(bob)).includes('eng'));
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [docs[2]!], embed: 'inline' });
      assert.ok((await ids(bob)).includes('eng'));
    });

    it("every chunk carries its document's principals (migration 094): same content, new ACL, on every path", async () => {
      const mismatched = async () =>
        (await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.tenant_id = $1 AND c.acl_principals IS DISTINCT FROM d.acl_principals',
          [T],
        )).rows[0]!.n;
      assert.equal(await mismatched(), 0);
      // The content is unchanged, so the chunks are kept: only the trigger on documents can move their copy.
      const before = await db.query<{ id: string }>(`SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'ada' ORDER BY c.id`);
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [{ ...docs[3]!, acl: { groups: ['slack:C_ENG'] } }], embed: 'inline' });
      const after = await db.query<{ id: string }>(`SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'ada' ORDER BY c.id`);
      assert.deepEqual(after.rows, before.rows, 'the chunks were not rewritten');
      assert.equal(await mismatched(), 0);
      for (const mode of ['hybrid', 'lexical', 'vector'] as const) {
        assert.ok(!(await ids(ada, mode)).includes('ada'), `${mode}: the old grant is gone`);
        assert.ok((await ids(bob, mode)).includes('ada'), `${mode}: the new grant reads it`);
      }
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: [docs[3]!], embed: 'inline' });
      assert.equal(await mismatched(), 0);
      assert.ok((await ids(ada, 'lexical')).includes('ada'));
      // A chunk written without the copy (any other writer) takes its document's.
      const doc = await db.query<{ id: string }>(`SELECT id FROM documents WHERE tenant_id = $1 AND external_id = 'eng'`, [T]);
      await db.query(`INSERT INTO chunks (id, tenant_id, document_id, ordinal, content, terms, tfs, length) VALUES ('chk_acl_fill', $1, $2, 99, 'x', '{x}', '{1}', 1)`, [T, doc.rows[0]!.id]);
      const filled = await db.query<{ p: string[] }>(`SELECT acl_principals AS p FROM chunks WHERE id = 'chk_acl_fill'`);
      assert.deepEqual(filled.rows[0]!.p, ['group:slack:C_ENG']);
      await db.query(`DELETE FROM chunks WHERE id = 'chk_acl_fill'`);
    });
  });
}
