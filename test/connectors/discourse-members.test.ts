import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DISCOURSE_SITE, type FakeDiscourse, startFakeDiscourse } from '../fakes/discourse.ts';
import { syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/** Issue 24: a read-restricted category's readers are its permitted groups' members (and the admins). */
describe('discourse: read-restricted categories read by their groups’ members', () => {
  let forum: FakeDiscourse;
  let h: KindHarness;
  let id: string;
  before(async () => {
    forum = await startFakeDiscourse();
    ({ h, id } = await syncedHarness('discourse', forum.url, { credentials: { api_key: forum.apiKey, api_username: forum.username }, settings: { site_url: DISCOURSE_SITE } }));
  });
  after(async () => {
    await h.close();
    await forum.close();
  });
  const restricted = () => forum.data.topics.filter((t) => t.category_id === 9 && !t.deleted_at).map((t) => `topic:${t.id}`);
  const staffTopics = async (email: string) => (await visibleTo(h.t, id, email)).filter((x) => x === 'category:9' || restricted().includes(x)).sort();

  it('the staff group and the admins read the Staff category (emails from the admin users list); others do not', async () => {
    assert.ok(restricted().length > 0);
    assert.ok(forum.fake.requests.some((r) => r.path === '/c/9/show.json'));
    assert.ok(forum.fake.requests.some((r) => r.path === '/groups/staff/members.json'));
    const all = ['category:9', ...restricted()].sort();
    assert.deepEqual(await staffTopics('ada@acme.test'), all, 'admin and staff');
    assert.deepEqual(await staffTopics('grace@acme.test'), all, 'staff');
    assert.deepEqual(await staffTopics('linus@acme.test'), [], 'in neither group');
    assert.ok((await visibleTo(h.t, id, 'linus@acme.test')).includes('category:5'), 'open categories are everyone’s');
  });

  it('a member removed from the group at Discourse loses the category at the next sync', async () => {
    forum.data.groups.staff = ['ada'];
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.deepEqual(await staffTopics('grace@acme.test'), []);
    assert.equal((await staffTopics('ada@acme.test')).length, restricted().length + 1);
  });
});
