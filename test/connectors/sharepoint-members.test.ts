import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeGraph, startFakeGraph, USER_TOKEN } from '../fakes/sharepoint.ts';
import { syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/**
 * Issue 24: a group-connected site's library is read by its Microsoft 365 group's members (the library's
 * `owner.group`, expanded with `/groups/{id}/transitiveMembers/microsoft.graph.user`, nested groups included).
 */
describe('sharepoint: a group-connected site read by its Microsoft 365 group’s members', () => {
  let g: FakeGraph;
  let h: KindHarness;
  let id: string;
  before(async () => {
    g = await startFakeGraph();
    const mkt = g.sites.find((s) => s.name === 'marketing')!;
    ({ h, id } = await syncedHarness('sharepoint', g.graphUrl, { credentials: { access_token: USER_TOKEN }, settings: { site_urls: [mkt.webUrl], include_onedrive: false } }));
  });
  after(async () => {
    await h.close();
    await g.close();
  });
  /** The site's files only its members may read (those shared organization-wide excluded: everyone reads them). */
  const siteDocs = async (email: string) => {
    const everyone = new Set(await visibleTo(h.t, id, 'nobody@elsewhere.test'));
    return (await visibleTo(h.t, id, email)).filter((x) => x.startsWith('item:b!mkt-docs:') && !everyone.has(x));
  };
  const restricted = async () => {
    const everyone = new Set(await visibleTo(h.t, id, 'nobody@elsewhere.test'));
    return (await h.stored(id)).filter((x) => !everyone.has(x));
  };

  it('the group’s members (a nested group’s too, by mail or UPN) read the site’s files; others do not', async () => {
    assert.ok(g.fake.requests.some((r) => r.path === '/v1.0/groups/g-marketing/transitiveMembers/microsoft.graph.user' && r.query.$top === '999'));
    const all = await restricted();
    assert.ok(all.length > 0);
    assert.deepEqual(await siteDocs('ada.lovelace@contoso.com'), all);
    assert.deepEqual(await siteDocs('bob@contoso.com'), all, 'in the nested Campaign group, no mail: by UPN');
    assert.deepEqual(await siteDocs('cy@contoso.com'), [], 'not a member');
  });

  it('a member removed from the group at Entra ID loses the site at the next sync; a 403 keeps the last members and says so', async () => {
    g.directory.groups['g-campaign'] = [];
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.deepEqual(await siteDocs('bob@contoso.com'), []);
    g.directory.refused = true;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle');
    assert.match(String(c.status_reason), /GroupMember\.Read\.All/);
    assert.deepEqual(await siteDocs('ada.lovelace@contoso.com'), await restricted());
  });
});
