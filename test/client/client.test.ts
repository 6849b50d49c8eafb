import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AtriumApiError, type AtriumClient, createAtriumClient, type OperationResponse, unwrap } from '../../packages/client/src/index.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';

/** The generated client against the whole app listening on a real port. */
describe('@atrium/client', () => {
  let t: TestApp;
  let baseUrl: string;
  let atrium: AtriumClient;
  before(async () => {
    t = await createTestApp();
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    atrium = createAtriumClient({ baseUrl, apiKey: ADMIN_KEY });
  });
  after(() => t.close());

  it('makes typed calls: who am I, push documents, then search them', async () => {
    const me = await unwrap(atrium.GET('/v1/me'));
    assert.equal(me.tenant_id, 'default');
    assert.ok(me.permissions.includes('admin'));

    const created = await unwrap(atrium.POST('/v1/connectors', { body: { connector_type: 'api', display_name: 'client test' } }));
    const pushed = await unwrap(
      atrium.POST('/v1/connectors/{connector_id}/documents', {
        params: { path: { connector_id: created.connector_id } },
        body: { documents: [{ external_id: 'd1', title: 'Vacation policy', content: 'Employees get twenty-five days of paid vacation a year.' }] },
      }),
    );
    assert.equal(pushed.added, 1);
    const found: OperationResponse<'postSearch'> = await unwrap(atrium.POST('/v1/search', { body: { query: 'paid vacation days', mode: 'lexical' } }));
    assert.equal(found.passages[0]?.title, 'Vacation policy');
    assert.equal(found.passages[0]?.source_node, created.connector_id);

    // The compiler holds calls to the schema (tsc checks this file): an unknown path and a wrong body do not compile.
    // @ts-expect-error not a path of the API
    void (() => atrium.GET('/v1/no-such-thing'));
    // @ts-expect-error `query` is required and a string
    void (() => atrium.POST('/v1/search', { body: { query: 3 } }));
  });

  it('surfaces the documented error shape as an AtriumApiError', async () => {
    const anonymous = createAtriumClient({ baseUrl, apiKey: 'atr_not_a_real_key_000000000000' });
    const denied = await unwrap(anonymous.GET('/v1/me')).catch((e: unknown) => e);
    assert.ok(denied instanceof AtriumApiError);
    assert.equal(denied.status, 401);
    assert.equal(denied.code, 'unauthenticated');
    assert.match(denied.message, /.+/);

    // Without unwrap the error body is typed from the schema's Error component.
    const bad = await atrium.POST('/v1/search', { body: { query: '' } });
    assert.equal(bad.response.status, 400);
    assert.equal(bad.error?.error.code, 'invalid_request');
    assert.equal(typeof bad.error?.error.message, 'string');
    const thrown = await unwrap(atrium.POST('/v1/search', { body: { query: '' } })).catch((e: unknown) => e);
    assert.ok(thrown instanceof AtriumApiError);
    assert.equal(thrown.code, 'invalid_request');

    const missing = await unwrap(atrium.GET('/v1/connectors/{id}', { params: { path: { id: 'no-such-connector' } } })).catch((e: unknown) => e);
    assert.ok(missing instanceof AtriumApiError);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'not_found');
  });

  it('says network_error (status 0) when nothing answers', async () => {
    const nowhere = createAtriumClient({ baseUrl: 'http://127.0.0.1:9', apiKey: ADMIN_KEY });
    const err = await unwrap(nowhere.GET('/v1/health')).catch((e: unknown) => e);
    assert.ok(err instanceof AtriumApiError);
    assert.equal(err.status, 0);
    assert.equal(err.code, 'network_error');
  });
});
