import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { type KindHarness, kindHarness } from './support.ts';

const actAsKeys = new WeakMap<TestApp, Promise<string>>();

/** One `query` + `act_as` key per test app (created by the admin), to read as any person. */
function actAsKey(t: TestApp): Promise<string> {
  let key = actAsKeys.get(t);
  if (!key) {
    key = t.app
      .inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name: 'acl-reader', permissions: ['query', 'act_as'] } })
      .then((r) => {
        assert.equal(r.statusCode, 201, r.body);
        return `Bearer ${r.json().key as string}`;
      });
    actAsKeys.set(t, key);
  }
  return key;
}

/**
 * The external ids of the connector's stored documents `email` may read, asked through the REST surface as that
 * person (`X-Atrium-Act-As` on `GET /v1/documents/{id}`: 200 when visible, 404 when not), sorted.
 */
export async function visibleTo(t: TestApp, connectorId: string, email: string): Promise<string[]> {
  const authorization = await actAsKey(t);
  const docs = await t.db.query<{ id: string; external_id: string }>('SELECT id, external_id FROM documents WHERE source_node = $1 ORDER BY external_id', [connectorId]);
  const out: string[] = [];
  for (const d of docs.rows) {
    const r = await t.app.inject({ method: 'GET', url: `/v1/documents/${encodeURIComponent(d.id)}`, headers: { authorization, 'x-atrium-act-as': email } });
    assert.ok(r.statusCode === 200 || r.statusCode === 404, r.body);
    if (r.statusCode === 200) out.push(d.external_id);
  }
  return out;
}

/** An admin maps a vendor account the vendor gives no email for to a person (`PUT /v1/identity/accounts/{id}`). */
export async function mapAccount(t: TestApp, accountId: string, email: string): Promise<void> {
  const r = await t.app.inject({ method: 'PUT', url: `/v1/identity/accounts/${encodeURIComponent(accountId)}`, headers: t.admin, payload: { email } });
  assert.equal(r.statusCode, 200, r.body);
}

/**
 * The members tests' start: a harness for `kind` against its fake at `apiUrl`, one connector created from `payload`
 * (201), validated, and fully synced once (idle).
 */
export async function syncedHarness(kind: string, apiUrl: string, payload: Record<string, unknown>): Promise<{ h: KindHarness; id: string }> {
  const h = await kindHarness(kind, apiUrl);
  const r = await h.create(payload);
  assert.equal(r.statusCode, 201, r.body);
  const id = r.json().connector_id as string;
  await h.worker.drain();
  const synced = await h.sync(id, true);
  assert.equal(synced.status, 'idle', JSON.stringify(synced));
  return { h, id };
}
