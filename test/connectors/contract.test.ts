import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getKind, listKinds } from '../../src/connectors/index.ts';
import { CONNECTOR_GROUPS } from '../../src/connectors/kit/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { scheduleDueSyncs } from '../../src/sync/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type Fixture, loadFixtures } from './fixtures/fixture.ts';
import { connectorWorker, storedIds } from './support.ts';

/**
 * The contract every syncing connector kind passes, each against its vendor fake: credentials are checked
 * (bad → error, no retry loop), a full sync stores exactly the source, an incremental sync adds exactly what
 * changed after the cursor, a full sync removes what vanished, a vendor 429 is waited out, the scheduler
 * starts incremental syncs when due, and (kinds with webhooks) unsigned deliveries are refused.
 */
const FIXTURES = await loadFixtures();

/** Kinds that have their own suite instead of a vendor fake: no vendor, so no credentials, 429 or webhooks to check. */
const OWN_SUITE: Record<string, string> = { filesystem: 'test/connectors/filesystem.test.ts (a local folder: no vendor API, credentials or rate limits)' };

/**
 * SaaS kinds of the first four groups whose vendor documents no OAuth 2.0 for the API the kind calls, with the vendor
 * fact: they take the vendor's token only (and must not pretend otherwise).
 */
const NO_VENDOR_OAUTH: Record<string, string> = {
  coda: "Coda's REST API authenticates with API tokens only; Coda's OAuth 2.0 is for Packs calling other services (coda.io/developers/apis/v1 § Authentication)",
  discord:
    "Discord's OAuth 2.0 `bot` scope only adds the bot to a guild: the token it answers is the installing user's and cannot read channel messages; the bot token comes from the Developer Portal (discord.com/developers/docs/topics/oauth2 § Bot Authorization Flow)",
  zulip: "Zulip's REST API authenticates with an email and API key (HTTP Basic); a Zulip server is no OAuth 2.0 provider for third-party apps, its OAuth is for signing in with GitHub, Google… (zulip.com/api/api-keys)",
  discourse:
    "Discourse's API authenticates with Api-Key + Api-Username headers; its User API keys come from Discourse's own handshake (an RSA public key, a nonce and an encrypted payload returned to auth_redirect: meta.discourse.org/t/48536), not an OAuth 2.0 authorization-code flow",
};

/** Kinds of the first four groups with no vendor account at all (public web content): no OAuth, no credentials. */
const NO_VENDOR_ACCOUNT: Record<string, string> = {
  rss: 'reads public RSS / Atom feeds: there is no account to authorize',
  web: 'crawls public (or egress-allowed intranet) websites: there is no account to authorize',
};

describe('connector contract: coverage', () => {
  it('every catalogue kind that syncs has a contract fixture (test/connectors/fixtures/<connector_type>.ts)', () => {
    const missing = listKinds()
      .filter((k) => k.sync && !FIXTURES.has(k.type) && !OWN_SUITE[k.type])
      .map((k) => k.type);
    assert.deepEqual(missing, [], `kinds without a contract fixture: ${missing.join(', ')}`);
    for (const type of FIXTURES.keys()) assert.ok(getKind(type), `fixture ${type}.ts names no catalogue kind`);
  });

  it("every kind has a group of the spec's grouping; SaaS kinds of the first four groups offer OAuth 2.0, LLM providers an API key", () => {
    for (const k of listKinds()) {
      assert.ok(CONNECTOR_GROUPS.includes(k.group), `${k.type}: group ${k.group}`);
      assert.ok(k.authTypes.length > 0, `${k.type}: auth types`);
      if (NO_VENDOR_ACCOUNT[k.type]) {
        assert.ok(!k.oauth && k.authTypes.length === 1 && k.authTypes[0] === 'none', `${k.type}: ${NO_VENDOR_ACCOUNT[k.type]}`);
      } else if (NO_VENDOR_OAUTH[k.type]) {
        assert.ok(!k.oauth && !k.authTypes.includes('oauth2') && k.authTypes.includes('api_key'), `${k.type}: ${NO_VENDOR_OAUTH[k.type]}`);
      } else if (['productivity', 'developer_tools', 'crm', 'support'].includes(k.group)) {
        assert.ok(k.authTypes.includes('oauth2') && k.oauth, `${k.type} (${k.group}) must offer OAuth 2.0`);
      }
      if (k.group === 'llm_providers') assert.deepEqual([...k.authTypes], ['api_key'], `${k.type}: LLM providers take an API key`);
      if (k.authTypes.includes('oauth2')) assert.ok(k.oauth, `${k.type}: oauth2 without an OAuth capability`);
    }
    assert.equal(getKind('api')?.group, 'other');
    assert.equal(getKind('filesystem')?.group, 'other');
  });
});

for (const [kind, makeFixture] of FIXTURES) {
  describe(`connector contract: ${kind}`, () => {
    let f: Fixture;
    let t: TestApp;
    let worker: Worker;
    let id: string;
    const clock = fixedClock(new Date());
    before(async () => {
      f = await makeFixture();
      t = await createTestApp({ clock, env: { ...f.env, ATRIUM_SYNC_SCHEDULER: 'false' } });
      worker = connectorWorker(t);
    });
    after(async () => {
      await t.close();
      await f.close();
    });
    const create = async (credentials: Record<string, unknown>) => {
      const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: kind, display_name: kind, credentials, settings: f.settings } });
      assert.equal(r.statusCode, 201, r.body);
      await worker.drain();
      return r.json().connector_id as string;
    };
    const get = async (cid = id) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
    const sync = async (full: boolean) => {
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=${full}`, headers: t.admin });
      assert.equal(r.statusCode, 202, r.body);
      await worker.drain();
      return get();
    };
    const stored = async () => storedIds(t.db, id);

    it('is in the catalogue with sync', async () => {
      assert.ok(getKind(kind)?.sync);
      const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
      assert.ok(cat.connectors.some((c: { connector_type: string; sync: boolean }) => c.connector_type === kind && c.sync));
    });

    it('bad credentials → error with a reason, no retry loop (a kind without credentials refuses any)', async () => {
      if (!f.badCredentials) {
        assert.deepEqual(getKind(kind)?.authTypes, ['none'], 'only kinds that take no credentials may leave badCredentials out');
        const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: kind, display_name: kind, credentials: { token: 'x' }, settings: f.settings } });
        assert.equal(r.statusCode, 400, r.body);
        return;
      }
      const bad = await create(f.badCredentials);
      const c = await get(bad);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials/);
      const jobs = await t.db.query<{ attempts: number }>("SELECT attempts FROM jobs WHERE kind = 'connector.validate' AND payload->>'connectorId' = $1", [bad]);
      assert.deepEqual(jobs.rows.map((r) => Number(r.attempts)), [1]);
    });

    it('full sync stores exactly the source', async () => {
      id = await create(f.credentials);
      assert.equal((await get()).status, 'connected');
      const c = await sync(true);
      assert.equal(c.status, 'idle');
      assert.deepEqual(await stored(), f.expected());
      assert.equal(c.sync_runs[0].added, f.expected().length);
    });

    it('incremental sync adds exactly what changed after the cursor', async () => {
      const added = f.addItem();
      const c = await sync(false);
      assert.equal(c.sync_runs[0].added, 1);
      assert.ok((await stored()).includes(added));
      assert.deepEqual(await stored(), f.expected());
    });

    it('full sync removes what vanished at the source', async () => {
      const removed = f.removeItem();
      const c = await sync(true);
      assert.equal(c.sync_runs[0].deleted, 1);
      assert.equal((await stored()).includes(removed), false);
      assert.deepEqual(await stored(), f.expected());
    });

    it('a vendor 429 is waited out (rate_limited), then the sync completes', async () => {
      f.rateLimitNext();
      const c = await sync(false);
      assert.equal(c.status, 'idle');
      assert.equal(c.sync_runs[0].status, 'completed');
      assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
    });

    it('the scheduler starts an incremental sync when due, not before', async () => {
      const early = await scheduleDueSyncs(t.deps, new Date(clock.now().getTime() + 60_000));
      assert.equal(early.started.filter((s) => s.connectorId === id).length, 0);
      const due = await scheduleDueSyncs(t.deps, new Date(clock.now().getTime() + 16 * 60_000));
      assert.deepEqual(due.started.filter((s) => s.connectorId === id), [{ connectorId: id, syncType: 'incremental' }]);
      await worker.drain();
      const c = await get();
      assert.equal(c.sync_runs[0].trigger, 'schedule');
      assert.equal(c.status, 'idle');
    });

    it('refuses unsigned webhook deliveries (kinds with webhooks)', async () => {
      if (!getKind(kind)?.webhook) return;
      await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook/deliveries`, headers: { 'content-type': 'application/json' }, payload: '{}' });
      assert.equal(r.statusCode, 401);
    });
  });
}
