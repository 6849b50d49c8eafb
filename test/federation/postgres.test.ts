import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { upsertDocuments } from '../../src/documents/index.ts';
import { createFederationService, insertTombstones, runFederatedQuery } from '../../src/federation/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { openTestPostgres, silentLog } from '../support/db.ts';

/** The same query on the machine's PostgreSQL 15 (no pgvector): lexical retrieval, trigger, tombstones. */
describe('federated query on PostgreSQL', () => {
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let db: DatabaseExecutor;
  const clock = fixedClock('2026-06-01T12:00:00Z');
  const config = loadConfig({ ATRIUM_DATA_DIR: '/tmp/atrium-test-unused', LOG_LEVEL: 'silent' });
  const principal = { kind: 'bootstrap' as const, id: 'k', tenantId: 'default', userId: 'x', permissions: new Set(['query' as const]) };
  const deps = () => ({ config, db, log: silentLog, clock, secrets: createSecretBox('s'), federation: createFederationService(config) });

  before(async () => {
    pg = await openTestPostgres();
    db = pg.db;
    await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('api-pg', 'default', 'api', 'pg', 'idle')`);
    await upsertDocuments(
      { db },
      {
        tenantId: 'default',
        connectorId: 'api-pg',
        documents: [
          { external_id: 'e1', title: 'Database failover runbook', content: 'failover of the primary database', updated_at: '2026-05-30T00:00:00Z' },
          { external_id: 'e2', title: 'Database sizing', content: 'database sizing notes', updated_at: '2026-01-01T00:00:00Z' },
        ],
      },
    );
  });
  after(() => pg?.drop());

  it('ranks, flags tombstones and bumps the cache generation on document changes', async () => {
    const d = deps();
    const first = await runFederatedQuery(d, principal, { query: 'database failover', user_id: 'u', include_reasoning: true });
    assert.deepEqual(first.nodes_consulted, ['api-pg']);
    assert.equal(first.items[0]!.metadata.external_id, 'e1');
    assert.equal(first.items[0]!.temporal_status, 'recent');
    assert.equal(first.items[1]!.temporal_status, 'historical');
    assert.equal(first.reasoning!.cache, 'miss');
    assert.equal((await runFederatedQuery(d, principal, { query: 'database failover', user_id: 'u', include_reasoning: true })).reasoning!.cache, 'hit');

    const gen = async () => (await db.query<{ generation: string }>("SELECT generation::text FROM federation_generations WHERE tenant_id = 'default'")).rows[0]?.generation;
    const before = await gen();
    await upsertDocuments({ db }, { tenantId: 'default', connectorId: 'api-pg', documents: [{ external_id: 'e3', title: 'Database failover drill', content: 'drill' }] });
    assert.notEqual(await gen(), before);
    const after = await runFederatedQuery(d, principal, { query: 'database failover', user_id: 'u', include_reasoning: true });
    assert.equal(after.reasoning!.cache, 'miss');
    assert.ok(after.items.some((i) => i.metadata.external_id === 'e3'));

    await insertTombstones(db, 'default', [{ document_id: null, connector_id: 'api-pg', external_id: 'e1' }], { reason: null, createdBy: 'k', now: clock.now() });
    const forgotten = await runFederatedQuery(d, principal, { query: 'database failover', user_id: 'u' });
    const last = forgotten.items[forgotten.items.length - 1]!;
    assert.equal(last.metadata.external_id, 'e1');
    assert.equal(last.suppressed_by_tombstone, true);
  });
});
