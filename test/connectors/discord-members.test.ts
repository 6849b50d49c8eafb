import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADA, type FakeDiscord, GRACE, LINUS, OWNER, STAFF_ROLE, startFakeDiscord } from '../fakes/discord.ts';
import { mapAccount, syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/**
 * Issue 24: a private channel's readers are the members its permission overwrites let view it (the Staff role's
 * overwrite, a member overwrite, the owner, ADMINISTRATOR), computed from `GET /guilds/{id}` and its members.
 */
describe('discord: private channels read by the members their overwrites admit', () => {
  let dc: FakeDiscord;
  let h: KindHarness;
  let id: string;
  const people = { ada: ADA, grace: GRACE, linus: LINUS, owner: OWNER };
  before(async () => {
    dc = await startFakeDiscord();
    ({ h, id } = await syncedHarness('discord', dc.url, { credentials: { token: dc.token }, settings: { sync_private: true, include_threads: false } }));
    // Discord gives bots no email: an admin maps each account once.
    for (const [name, u] of Object.entries(people)) await mapAccount(h.t, `discord:${u.id}`, `${name}@acme.test`);
  });
  after(async () => {
    await h.close();
    await dc.close();
  });
  const staffChannel = () => dc.data.channels.find((c) => c.name === 'staff')!;
  const staffDocs = (ids: string[]) => ids.filter((x) => x.includes(staffChannel().id));
  const sees = async (name: string) => staffDocs(await visibleTo(h.t, id, `${name}@acme.test`)).length > 0;

  it('the Staff role, a member overwrite and the owner read #staff; others do not, but read public channels', async () => {
    assert.ok(dc.fake.requests.some((r) => r.path.endsWith('/members') && r.query.limit === '1000'), 'members listed 1000 a page');
    assert.deepEqual({ ada: await sees('ada'), grace: await sees('grace'), linus: await sees('linus'), owner: await sees('owner') }, { ada: true, grace: false, linus: true, owner: true });
    const grace = await visibleTo(h.t, id, 'grace@acme.test');
    assert.ok(grace.length > 0, 'public channels are everyone’s');
  });

  it('a role removed at Discord takes the channel away at the next sync; without the members intent the sync says so', async () => {
    const ada = dc.data.members[dc.data.guilds[0]!.id]!.find((m) => m.user.id === ADA.id)!;
    ada.roles = ada.roles.filter((r) => r !== STAFF_ROLE);
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.equal(await sees('ada'), false);
    assert.equal(await sees('linus'), true);
    dc.data.membersIntent = false;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle', 'a refused member list does not fail the sync');
    assert.match(String(c.status_reason), /Server Members privileged intent/);
    assert.equal(await sees('linus'), true, 'the last known readers stay');
  });
});
