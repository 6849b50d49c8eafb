import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { currentOAuthTokens, getConnector } from '../../src/connectors/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { startFakeLinear } from '../fakes/linear.ts';
import { type FakeOAuth, startFakeOAuth } from '../fakes/oauth.ts';
import { loadSlackExport, startFakeSlack } from '../fakes/slack.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, syncConnector } from './support.ts';

describe('connector OAuth 2.0 (authorization code + PKCE, refresh)', () => {
  let t: TestApp;
  let idp: FakeOAuth;
  const clock = fixedClock('2026-05-01T10:00:00Z');
  before(async () => {
    idp = await startFakeOAuth({ id: 'gh-client', secret: 'gh-secret' });
    t = await createTestApp({
      clock,
      env: {
        ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ github: { client_id: 'gh-client', client_secret: 'gh-secret', authorize_url: idp.authorizeUrl, token_url: idp.tokenUrl } }),
      },
    });
  });
  after(async () => {
    await t.close();
    await idp.close();
  });

  const callback = (state: string, code: string) => t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(state)}&code=${encodeURIComponent(code)}` });

  it('create without a token returns oauth_url; the callback exchanges the code and connects', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'gh oauth' } });
    assert.equal(created.statusCode, 201, created.body);
    const { connector_id: id, oauth_url: oauthUrl, status } = created.json();
    assert.equal(status, 'connecting');
    const u = new URL(oauthUrl);
    assert.equal(`${u.origin}${u.pathname}`, idp.authorizeUrl);
    assert.equal(u.searchParams.get('redirect_uri'), 'https://atrium.example.com/v1/connectors/oauth/callback');
    assert.equal(u.searchParams.get('scope'), 'repo read:org read:discussion');
    const state = u.searchParams.get('state') ?? '';
    const code = idp.authorize(oauthUrl);
    const done = await callback(state, code);
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { status: 'connected', connector_id: id, created: false });
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'connected');
    assert.equal(c.oauth.connected, true);
    assert.equal(c.oauth.token_expires_at, '2026-05-01T11:00:00.000Z');
    const row = await t.db.query<{ oauth_tokens_enc: string }>('SELECT oauth_tokens_enc FROM connectors WHERE id = $1', [id]);
    assert.equal(row.rows[0]?.oauth_tokens_enc.includes('at-1'), false, 'tokens sealed at rest');
    assert.equal(JSON.stringify(c).includes('at-1'), false);

    const replay = await callback(state, code);
    assert.equal(replay.statusCode, 400, 'a state is single use');
    assert.match(replay.json().error.message, /already used/);
  });

  it('a failed code exchange says why without the code or the client secret the provider echoed', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'echo' } });
    const state = new URL(created.json().oauth_url).searchParams.get('state') ?? '';
    const code = 'forged-code-0123456789';
    const res = await callback(state, code);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /token exchange failed: .*invalid_grant/);
    assert.ok(!res.body.includes(code), res.body);
    const secret = t.config.connectors.oauthClients.github?.client_secret ?? '';
    assert.ok(secret.length >= 8 && !res.body.includes(secret), res.body);
  });

  it('oauth-url states are bound to a connector and expire after 10 minutes', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'late' } });
    const id = created.json().connector_id;
    const wrongType = await t.app.inject({ method: 'GET', url: `/v1/connectors/notion/oauth-url?connector_id=${id}`, headers: t.admin });
    assert.equal(wrongType.statusCode, 400);
    const r = await t.app.inject({ method: 'GET', url: `/v1/connectors/github/oauth-url?connector_id=${id}`, headers: t.admin });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().callback_url, 'https://atrium.example.com/v1/connectors/oauth/callback');
    const code = idp.authorize(r.json().url);
    clock.advance(11 * 60_000);
    const late = await callback(r.json().state, code);
    assert.equal(late.statusCode, 400);
    const forged = await callback('not-a-state', code);
    assert.equal(forged.statusCode, 400);
    const other = await t.keyWith(['connector:write'], 'tenant-b');
    const cross = await t.app.inject({ method: 'GET', url: `/v1/connectors/github/oauth-url?connector_id=${id}`, headers: { authorization: other.authorization } });
    assert.equal(cross.statusCode, 404, 'another tenant cannot start OAuth for this connector');
  });

  it('a connector that cannot take the callback gets 409 for oauth-url; a late callback stores no tokens', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'twice' } });
    const id = created.json().connector_id;
    const second = await t.app.inject({ method: 'GET', url: `/v1/connectors/github/oauth-url?connector_id=${id}`, headers: t.admin });
    assert.equal(second.statusCode, 200, 'connecting: authorizable');
    const ok = await callback(new URL(created.json().oauth_url).searchParams.get('state') ?? '', idp.authorize(created.json().oauth_url));
    assert.equal(ok.statusCode, 200, ok.body);
    const c = await getConnector(t.db, 'default', id);
    assert.ok(c);
    const first = await currentOAuthTokens(t.deps, c, clock.now());

    const refused = await t.app.inject({ method: 'GET', url: `/v1/connectors/github/oauth-url?connector_id=${id}`, headers: t.admin });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().error.details.status, 'connected');
    // The URL handed out while it was still connecting: the callback fails and the first tokens stay.
    const late = await callback(second.json().state, idp.authorize(second.json().url));
    assert.equal(late.statusCode, 400, late.body);
    assert.match(late.json().error.message, /cannot take 'oauth_completed'/);
    const still = await getConnector(t.db, 'default', id);
    assert.ok(still);
    assert.equal((await currentOAuthTokens(t.deps, still, clock.now()))?.access_token, first?.access_token);
  });

  it('new credentials replace the OAuth tokens, so a connector whose token was revoked can be repaired', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'repair' } });
    const id = created.json().connector_id;
    await callback(new URL(created.json().oauth_url).searchParams.get('state') ?? '', idp.authorize(created.json().oauth_url));
    // Its token was rejected later (a sync answered 401): the connector is in `error`.
    await t.db.query(`UPDATE connectors SET status = 'error' WHERE id = $1`, [id]);
    const put = await t.app.inject({ method: 'PUT', url: `/v1/connectors/${id}/credentials`, headers: t.admin, payload: { credentials: { access_token: 'ghp_replacement_token_0123' } } });
    assert.equal(put.statusCode, 200, put.body);
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.oauth.connected, false);
    const record = await getConnector(t.db, 'default', id);
    assert.ok(record);
    assert.equal(await currentOAuthTokens(t.deps, record, clock.now()), null);
    const stored = JSON.parse(t.deps.secrets.open(record.credentialsEnc ?? '')) as { access_token: string };
    assert.equal(stored.access_token, 'ghp_replacement_token_0123');
  });

  it('refreshes tokens before expiry; a rejected refresh disconnects the connector', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'refresh' } });
    const id = created.json().connector_id;
    await callback(new URL(created.json().oauth_url).searchParams.get('state') ?? '', idp.authorize(created.json().oauth_url));
    let c = await getConnector(t.db, 'default', id);
    assert.ok(c);
    const first = await currentOAuthTokens(t.deps, c, clock.now());
    assert.ok(first?.access_token.startsWith('at-'));
    clock.advance(56 * 60_000); // within 5 minutes of expiry
    const refreshed = await currentOAuthTokens(t.deps, c, clock.now());
    assert.notEqual(refreshed?.access_token, first?.access_token);
    assert.equal(idp.grants.at(-1)?.grant_type, 'refresh_token');
    c = await getConnector(t.db, 'default', id);
    assert.ok(c);
    clock.advance(56 * 60_000);
    idp.revokeAll();
    await assert.rejects(currentOAuthTokens(t.deps, c, clock.now()), /invalid_grant/);
    const after = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(after.status, 'disconnected');
    assert.match(after.status_reason, /reconnect/);
  });

  it('answers 422 when no OAuth client is configured for a kind', async () => {
    const bare = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
    try {
      const r = await bare.app.inject({ method: 'POST', url: '/v1/connectors', headers: bare.admin, payload: { connector_type: 'github', display_name: 'x' } });
      assert.equal(r.statusCode, 422);
      assert.equal(r.json().error.code, 'oauth_not_configured');
      const list = await bare.app.inject({ method: 'GET', url: '/v1/connectors', headers: bare.admin });
      assert.deepEqual(list.json().connectors, [], 'nothing half-created');
    } finally {
      await bare.close();
    }
  });

  it('oauth-url with no parameters: the callback creates the connector once the exchange succeeds, named as asked', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: t.admin })).json().connectors.length;
    const r = await t.app.inject({ method: 'GET', url: '/v1/connectors/github/oauth-url?display_name=Engineering%20GitHub', headers: t.admin });
    assert.equal(r.statusCode, 200, r.body);
    const { url, state, callback_url } = r.json();
    assert.equal(callback_url, 'https://atrium.example.com/v1/connectors/oauth/callback');
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: t.admin })).json().connectors.length, before, 'nothing is created before the callback');
    const refused = await callback(state, 'forged-code-000000000');
    assert.equal(refused.statusCode, 400, 'a failed exchange creates nothing');
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: t.admin })).json().connectors.length, before);

    const again = (await t.app.inject({ method: 'GET', url: '/v1/connectors/github/oauth-url?display_name=Engineering%20GitHub', headers: t.admin })).json();
    const done = await callback(again.state, idp.authorize(again.url));
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().created, true);
    const id = done.json().connector_id;
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.display_name, 'Engineering GitHub');
    assert.equal(c.status, 'connected');
    assert.equal(c.oauth.connected, true);
    assert.ok(c.schedule.next_full_at, 'its first full sync is due');
    const audit = await t.db.query<{ action: string }>("SELECT action FROM audit_events WHERE details->>'connector_id' = $1 ORDER BY id", [id]);
    assert.deepEqual(audit.rows.map((x) => x.action).sort(), ['connector.created', 'connector.oauth_completed']);
    assert.ok(url.includes('code_challenge='));
  });

  it('oauth-url refuses an unknown kind, a kind without OAuth, and display_name beside connector_id', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/v1/connectors/nope/oauth-url', headers: t.admin });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error.details.problems[0].path, 'connector_type');
    const push = await t.app.inject({ method: 'GET', url: '/v1/connectors/api/oauth-url', headers: t.admin });
    assert.equal(push.statusCode, 422);
    assert.equal(push.json().error.code, 'oauth_unsupported');
    const both = await t.app.inject({ method: 'GET', url: '/v1/connectors/github/oauth-url?connector_id=x&display_name=y', headers: t.admin });
    assert.equal(both.statusCode, 400);
    const viewer = await t.keyWith(['query']);
    const denied = await t.app.inject({ method: 'GET', url: '/v1/connectors/github/oauth-url', headers: { authorization: viewer.authorization } });
    assert.equal(denied.statusCode, 403);
  });
});

describe('Slack and Linear connect with OAuth 2.0 (and keep their token / key credentials)', () => {
  it('Slack OAuth v2: the bot token from oauth.v2.access syncs; the connector is named after the workspace', async () => {
    const seed = await loadSlackExport();
    const slack = await startFakeSlack(seed, { pageSize: 50 });
    const idp = await startFakeOAuth({ id: 'slack-client', secret: 'slack-secret' }, { accessToken: () => slack.token, extra: { ok: true, team: { id: 'T1', name: 'Acme' }, bot_user_id: 'B1' } });
    const t = await createTestApp({
      env: {
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }),
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ slack: { client_id: 'slack-client', client_secret: 'slack-secret', authorize_url: idp.authorizeUrl, token_url: idp.tokenUrl } }),
      },
    });
    try {
      const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json().connectors;
      const entry = cat.find((k: { connector_type: string }) => k.connector_type === 'slack');
      assert.deepEqual(entry.auth_types, ['oauth2', 'api_key']);
      assert.equal(entry.group, 'productivity');
      const r = (await t.app.inject({ method: 'GET', url: '/v1/connectors/slack/oauth-url', headers: t.admin })).json();
      const u = new URL(r.url);
      assert.equal(u.searchParams.get('scope')?.split(',').includes('channels:history'), true, 'Slack scopes are comma-separated');
      const done = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(r.state)}&code=${encodeURIComponent(idp.authorize(r.url))}` });
      assert.equal(done.statusCode, 200, done.body);
      const id = done.json().connector_id;
      const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
      assert.match(c.display_name, /^Slack \(.+\)$/, 'named after the account auth.test answers');
      const worker = connectorWorker(t);
      const synced = await syncConnector(t, worker, id, true);
      assert.equal(synced.sync_runs[0].status, 'completed', JSON.stringify(synced.sync_runs[0]));
      assert.ok(synced.document_count > 0);
      // The token credential still works beside OAuth.
      const byToken = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'slack', display_name: 'by token', credentials: { token: slack.token } } });
      assert.equal(byToken.statusCode, 201, byToken.body);
      assert.equal(byToken.json().oauth_url, null);
    } finally {
      await t.close();
      await slack.close();
      await idp.close();
    }
  });

  it('Linear OAuth 2.0: the access token is sent as a Bearer token and syncs; an API key still works', async () => {
    const lin = await startFakeLinear();
    const idp = await startFakeOAuth({ id: 'lin-client', secret: 'lin-secret' }, { accessToken: () => lin.oauthToken });
    const t = await createTestApp({
      env: {
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ linear: lin.url }),
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ linear: { client_id: 'lin-client', client_secret: 'lin-secret', authorize_url: idp.authorizeUrl, token_url: idp.tokenUrl } }),
      },
    });
    try {
      const r = (await t.app.inject({ method: 'GET', url: '/v1/connectors/linear/oauth-url?display_name=Linear%20OAuth', headers: t.admin })).json();
      assert.equal(new URL(r.url).searchParams.get('scope'), 'read,write');
      const done = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(r.state)}&code=${encodeURIComponent(idp.authorize(r.url))}` });
      assert.equal(done.statusCode, 200, done.body);
      const worker = connectorWorker(t);
      const synced = await syncConnector(t, worker, done.json().connector_id, true);
      assert.equal(synced.sync_runs[0].status, 'completed', JSON.stringify(synced.sync_runs[0]));
      // Linear's items are team-restricted: the admin key (a service view) counts them only with the audited bypass.
      const all = await t.app.inject({ method: 'GET', url: `/v1/connectors/${done.json().connector_id}?bypass_acl=true`, headers: t.admin });
      assert.ok(all.json().document_count > 0);
      const byKey = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'linear', display_name: 'by key', credentials: { api_key: lin.apiKey } } });
      assert.equal(byKey.statusCode, 201, byKey.body);
      await worker.drain();
      assert.equal((await t.app.inject({ method: 'GET', url: `/v1/connectors/${byKey.json().connector_id}`, headers: t.admin })).json().status, 'connected');
    } finally {
      await t.close();
      await lin.close();
      await idp.close();
    }
  });
});
