import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FORWARDED_FOR_HEADER, HOP_HEADER } from '../../src/federation/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, addDocs } from './fixtures.ts';

/**
 * The reader's identity crosses a federation hop (docs/permissions.md): node A forwards the person it answers in
 * FORWARDED_FOR_HEADER, and node B answers for that person only when A's key for B holds `act_as`.
 */
describe('federation forwards the reader to remote nodes', () => {
  let a: TestApp;
  let b: TestApp;
  let bUrl: string;
  const keys: Record<string, string> = {};
  let actAsKeyOfB: string;

  before(async () => {
    const env = { ATRIUM_FEDERATION_DEADLINE_MS: '3000', ATRIUM_RATE_LIMIT_BURST: '1000' };
    [a, b] = await Promise.all([createTestApp({ env }), createTestApp({ env })]);
    await addConnector(b, 'push-b', 'api');
    await addDocs(b, 'push-b', [
      { external_id: 'pub', title: 'Payment guide', content: 'payment guide for everyone', acl: { public: true } },
      { external_id: 'ada', title: 'Payment plan of Ada', content: 'payment plan codename kestrel', acl: { users: ['ada@acme.test'] } },
      { external_id: 'fin', title: 'Payment ledger', content: 'payment ledger of finance osprey', acl: { groups: ['finance'] } },
    ]);
    const fin = await b.app.inject({ method: 'PUT', url: '/v1/identity/groups/finance/members', headers: b.admin, payload: { members: ['bob@acme.test'] } });
    assert.equal(fin.statusCode, 200, fin.body);
    bUrl = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const bKey = async (permissions: string[]) => {
      const r = await b.app.inject({ method: 'POST', url: '/v1/api-keys', headers: b.admin, payload: { name: permissions.join('+'), permissions } });
      assert.equal(r.statusCode, 201, r.body);
      return r.json().key as string;
    };
    actAsKeyOfB = await bKey(['query', 'act_as']);
    for (const [name, key] of [
      ['paris', actAsKeyOfB],
      ['lyon', await bKey(['query'])],
    ] as const) {
      const reg = await a.app.inject({ method: 'POST', url: '/v1/nodes', headers: a.admin, payload: { name, url: bUrl, api_key: key } });
      assert.equal(reg.statusCode, 201, reg.body);
    }
    const aKey = async (name: string, permissions: string[], identity?: string) => {
      const r = await a.app.inject({ method: 'POST', url: '/v1/api-keys', headers: a.admin, payload: { name, permissions, ...(identity ? { identity: { email: identity } } : {}) } });
      assert.equal(r.statusCode, 201, r.body);
      return `Bearer ${r.json().key}`;
    };
    keys.ada = await aKey('ada', ['query'], 'ada@acme.test');
    keys.bob = await aKey('bob', ['query'], 'bob@acme.test');
    keys.service = await aKey('service', ['query']);
    keys.actAs = await aKey('assistant', ['query', 'act_as']);
    keys.admin = await aKey('admin', ['admin']);
  });
  after(() => Promise.all([a.close(), b.close()]));

  const titles = async (headers: Record<string, string>, node: string, userId: string, url = '/v1/federate') => {
    const r = await a.app.inject({ method: 'POST', url, headers, payload: { query: 'payment', user_id: userId, node_ids: [node], max_results: 20 } });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().items as { metadata: { title: string } }[]).map((i) => i.metadata.title).sort();
  };

  it('a node key with act_as: the remote answers exactly the forwarded person’s documents', async () => {
    assert.deepEqual(await titles({ authorization: keys.ada! }, 'paris', 'ada@acme.test'), ['Payment guide', 'Payment plan of Ada']);
    assert.deepEqual(await titles({ authorization: keys.bob! }, 'paris', 'bob@acme.test'), ['Payment guide', 'Payment ledger']);
    assert.deepEqual(await titles({ authorization: keys.actAs!, 'x-atrium-act-as': 'bob@acme.test' }, 'paris', 'x'), ['Payment guide', 'Payment ledger']);
    assert.deepEqual(await titles({ authorization: keys.actAs! }, 'paris', 'ada@acme.test'), ['Payment guide', 'Payment plan of Ada'], "an act_as key's user_id names the person");
    assert.deepEqual(await titles({ authorization: keys.service! }, 'paris', 'svc'), ['Payment guide'], 'a service view forwards nobody');
  });

  it('a service caller cannot reach a person through user_id, and an admin bypass is not forwarded', async () => {
    // A's service key without act_as names Ada: A reads a service view, and B sees no forwarded person
    // (B ignores a hop's body user_id, even from its act_as node key).
    assert.deepEqual(await titles({ authorization: keys.service! }, 'paris', 'ada@acme.test'), ['Payment guide']);
    assert.deepEqual(await titles({ authorization: keys.admin! }, 'paris', 'x', '/v1/federate?bypass_acl=true'), ['Payment guide']);
  });

  it('a node key without act_as: the remote ignores the forwarded person and answers its service view', async () => {
    assert.deepEqual(await titles({ authorization: keys.ada! }, 'lyon', 'ada@acme.test'), ['Payment guide']);
  });

  it('B honours the header only on its act_as credential', async () => {
    const hop = (authorization: string, extra: Record<string, string>, userId = 'u') =>
      b.app.inject({
        method: 'POST',
        url: '/v1/federate',
        headers: { authorization, [HOP_HEADER]: '1', ...extra },
        payload: { query: 'payment', user_id: userId, max_results: 20 },
      });
    const forwarded = await hop(`Bearer ${actAsKeyOfB}`, { [FORWARDED_FOR_HEADER]: encodeURIComponent('ada@acme.test') });
    assert.match(forwarded.body, /kestrel/);
    assert.doesNotMatch(forwarded.body, /osprey/);
    const noHeader = await hop(`Bearer ${actAsKeyOfB}`, {}, 'ada@acme.test');
    assert.doesNotMatch(noHeader.body, /kestrel|osprey/, "a hop's user_id never selects a view");
    const plain = (await b.keyWith(['query'])).authorization;
    const ignored = await hop(plain, { [FORWARDED_FOR_HEADER]: 'ada%40acme.test' });
    assert.equal(ignored.statusCode, 200, ignored.body);
    assert.doesNotMatch(ignored.body, /kestrel|osprey/);
  });
});
