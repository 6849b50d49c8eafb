// The fast lexical path (impact lists, migration 014) against the exhaustive reference: same top-k
// scores whenever it claims exactness, always exact with filters, lists equal to a recount after
// upserts, changes and deletes, and tenants kept apart. Lists are cut to 8 postings so the corpus
// (~360 chunks) exercises cutting, floors, the bound and the fallback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DocumentsDeps, deleteDocuments, upsertDocuments } from '../../src/documents/index.ts';
import { type CandidateRow, retrieveCandidates } from '../../src/documents/search/index.ts';
import type { SearchRequest } from '../../src/documents/types.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { openTestPglite, openTestPostgres, silentLog } from '../support/db.ts';
import { impactListsAreConsistent } from './store-suite.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// 60 made-up words with Zipf-like frequencies: "alpha…" words are in most documents, the tail in few.
const WORDS = Array.from({ length: 60 }, (_, i) => `${['alpha', 'bravo', 'delta', 'gamma', 'kappa', 'sigma'][i % 6]}${String.fromCharCode(97 + Math.floor(i / 6))}x`);
function text(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.min(WORDS.length - 1, Math.floor(WORDS.length * r() ** 2.5))] ?? 'x');
  return out.join(' ');
}
const SOURCES = ['api-a', 'api-b', 'api-c'];
function corpus(seed: number, count: number) {
  const r = rng(seed);
  return Array.from({ length: count }, (_, i) => ({
    source: SOURCES[i % SOURCES.length] ?? 'api-a',
    doc: {
      external_id: `d${i}`,
      title: text(r, 3),
      content: text(r, 5 + Math.floor(r() * 40)),
      author: `u${i % 4}`,
      updated_at: new Date(Date.UTC(2026, 0, 1 + (i % 90))).toISOString(),
    },
  }));
}

const QUERIES = [
  `${WORDS[0]} ${WORDS[1]}`, // the two most common words
  `${WORDS[0]} ${WORDS[1]} ${WORDS[2]} ${WORDS[3]} ${WORDS[4]} ${WORDS[5]}`, // long, all common
  `${WORDS[40]} ${WORDS[0]}`, // rare + common
  `${WORDS[55]}`, // one rare word
  `${WORDS[10]} ${WORDS[20]} ${WORDS[30]}`,
  `${WORDS[7]} ${WORDS[3]} ${WORDS[59]} ${WORDS[12]}`,
];

type Filter = Pick<SearchRequest, 'sources' | 'filters'>;
const FILTERS: Filter[] = [{}, { sources: ['api-b'] }, { filters: { authors: ['u1'] } }, { filters: { after: '2026-03-01T00:00:00Z' } }];

function lexicalTop(rows: readonly CandidateRow[]): { id: string; score: number }[] {
  return rows
    .filter((r) => r.in_lex)
    .map((r) => ({ id: String(r.chunk_id), score: Number(r.lexical) }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

/** The document fields of candidate rows (the candidate statement returns ids and scores only), by chunk id. */
async function withDocs(db: DatabaseExecutor, rows: readonly CandidateRow[]) {
  const r = await db.query<{ id: string; source_node: string; author: string | null; updated_at: Date | string | null }>(
    'SELECT c.id, d.source_node, d.author, d.updated_at FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY($1::text[])',
    [rows.map((x) => x.chunk_id)],
  );
  const byId = new Map(r.rows.map((x) => [x.id, x]));
  return rows.map((x) => ({ ...x, ...byId.get(x.chunk_id) }));
}

function impactSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>): void {
  describe(`impact-list lexical retrieval on ${name}`, () => {
    let db: DatabaseExecutor;
    let close: () => Promise<void>;
    let deps: DocumentsDeps;
    before(async () => {
      ({ db, close } = await open());
      await db.query("INSERT INTO tenants (id, name) VALUES ('other', 'other') ON CONFLICT DO NOTHING");
      for (const s of SOURCES) await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, 'default', 'api', $1)`, [s]);
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-o', 'other', 'api', 'o')`);
      deps = { db, log: silentLog, impactListSize: 8 };
      const docs = corpus(7, 360);
      for (const s of SOURCES) {
        const mine = docs.filter((d) => d.source === s).map((d) => d.doc);
        // Several batches, so lists grow, get cut and get appended to above their floor.
        for (let i = 0; i < mine.length; i += 40) await upsertDocuments(deps, { tenantId: 'default', connectorId: s, documents: mine.slice(i, i + 40), embed: 'none' });
      }
      await upsertDocuments(deps, { tenantId: 'other', connectorId: 'api-o', documents: corpus(99, 60).map((d) => d.doc), embed: 'none' });
    });
    after(() => close());

    /**
     * Compares both paths on every query × filter; returns how many unfiltered results were proven
     * exact, and how many filtered ones were exact (proven, or scored exhaustively because fewer than
     * k candidates passed the filter).
     */
    async function compareAll(tenantId = 'default'): Promise<{ proven: number; total: number; filteredExact: number; filteredTotal: number }> {
      let proven = 0;
      let total = 0;
      let filteredExact = 0;
      let filteredTotal = 0;
      for (const query of QUERIES) {
        for (const f of FILTERS) {
          for (const limit of [3, 10]) {
            const base = { tenantId, query, limit, candidates: limit, mode: 'lexical' as const, ...f };
            const fast = await retrieveCandidates(deps, { ...base, lexicalPath: 'impact' });
            const ref = await retrieveCandidates(deps, { ...base, lexicalPath: 'exhaustive' });
            const a = lexicalTop(fast.rows);
            const b = lexicalTop(ref.rows);
            const what = `${JSON.stringify(query)} ${JSON.stringify(f)} limit ${limit}`;
            if (f.sources !== undefined || f.filters !== undefined) {
              // The filtered reference (it starts from the documents that pass) against every match
              // of the unfiltered reference, filtered here.
              const every = await retrieveCandidates(deps, { tenantId, query, limit, candidates: 10_000, mode: 'lexical', lexicalPath: 'exhaustive' });
              const passes = (r: Awaited<ReturnType<typeof withDocs>>[number]) =>
                (!f.sources || f.sources.includes(String(r.source_node))) &&
                (!f.filters?.authors || f.filters.authors.includes(String(r.author))) &&
                (!f.filters?.after || new Date(r.updated_at ?? 0) >= new Date(f.filters.after));
              const expected = lexicalTop((await withDocs(db, every.rows)).filter(passes)).slice(0, limit);
              assert.deepEqual(b.map((x) => x.score), expected.map((x) => x.score), `filtered reference = filtered full ranking: ${what}`);
            }
            const filtered = f.sources !== undefined || f.filters !== undefined;
            if (filtered) {
              filteredTotal++;
              if (fast.lexicalExact) filteredExact++;
            } else {
              total++;
              if (fast.lexicalExact) proven++;
            }
            if (fast.lexicalExact) {
              assert.deepEqual(
                a.map((x) => x.score),
                b.map((x) => x.score),
                `same top-${limit} scores: ${what}`,
              );
              // Ids agree except among chunks tied at the cut-off score.
              const cut = b.at(-1)?.score;
              assert.deepEqual(
                a.filter((x) => x.score !== cut).map((x) => x.id),
                b.filter((x) => x.score !== cut).map((x) => x.id),
                `same top-${limit} chunks: ${what}`,
              );
            } else {
              // Unproven: still the right count, and never a score the reference would not give.
              assert.equal(a.length, b.length, what);
              assert.ok((a[0]?.score ?? 0) <= (b[0]?.score ?? 0) + 1e-9, what);
            }
          }
        }
      }
      return { proven, total, filteredExact, filteredTotal };
    }

    it('cuts lists, keeps them consistent with the chunks, and returns the exhaustive top-k', async (t) => {
      const cut = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM chunk_term_stats WHERE tenant_id = 'default' AND top_floor > 0");
      assert.ok((cut.rows[0]?.n ?? 0) >= 10, 'common terms had their lists cut');
      await impactListsAreConsistent(db);
      const { proven, total, filteredExact, filteredTotal } = await compareAll();
      // Both sides of the bound are exercised (lists this short rarely prove common-word queries).
      t.diagnostic(`unfiltered results proven exact: ${proven}/${total}; filtered exact: ${filteredExact}/${filteredTotal}`);
      assert.ok(proven > 0 && proven < total, `some but not all unfiltered results proven exact (${proven}/${total})`);
      // Filtered queries: exact where fewer than k candidates pass (the exhaustive fallback), the same
      // approximation as unfiltered ones otherwise; both happen on this corpus.
      assert.ok(filteredExact > 0 && filteredExact < filteredTotal, `some but not all filtered results exact (${filteredExact}/${filteredTotal})`);
    });

    it('stays consistent and exact after changed and deleted documents', async () => {
      const changed = corpus(123, 90).filter((d) => d.source === 'api-a').map((d) => d.doc);
      await upsertDocuments(deps, { tenantId: 'default', connectorId: 'api-a', documents: changed, embed: 'none' });
      await deleteDocuments(deps, { tenantId: 'default', connectorId: 'api-b', externalIds: Array.from({ length: 60 }, (_, i) => `d${i * 3 + 1}`) });
      await impactListsAreConsistent(db);
      await compareAll();
    });

    it('keeps tenants apart', async () => {
      const leak = await db.query(
        `SELECT s.tenant_id, x FROM chunk_term_stats s, unnest(s.top_seqs) x JOIN chunks c ON c.seq = x WHERE c.tenant_id <> s.tenant_id`,
      );
      assert.deepEqual(leak.rows, []);
      const other = await retrieveCandidates(deps, { tenantId: 'other', query: QUERIES[1] ?? '', limit: 10, mode: 'lexical' });
      assert.ok(other.rows.length > 0);
      assert.ok((await withDocs(db, other.rows)).every((r) => String(r.source_node) === 'api-o'));
      const mine = await retrieveCandidates(deps, { tenantId: 'default', query: QUERIES[1] ?? '', limit: 50, mode: 'lexical' });
      assert.ok((await withDocs(db, mine.rows)).every((r) => String(r.source_node) !== 'api-o'));
      await compareAll('other');
    });
  });
}

impactSuite('PGlite', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});
impactSuite('PostgreSQL', async () => {
  const t = await openTestPostgres();
  return { db: t.db, close: () => t.drop() };
});
