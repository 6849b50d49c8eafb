import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeGraph, startFakeGraph } from '../fakes/teams.ts';
import { syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/**
 * Issue 24: a standard channel is read by its team's Microsoft 365 group members (`/groups/{team id}/
 * transitiveMembers`), a private or shared channel by its own roster (`/teams/{id}/channels/{id}/members`).
 */
describe('teams: channels read by their team’s or their own members', () => {
  let g: FakeGraph;
  let h: KindHarness;
  let id: string;
  before(async () => {
    g = await startFakeGraph();
    ({ h, id } = await syncedHarness('teams', `${g.url}/v1.0`, { credentials: { access_token: g.token }, settings: {} }));
  });
  after(async () => {
    await h.close();
    await g.close();
  });
  const ENG = 'fbe2bf47-16c8-47cf-b4a5-4b9b187c508b';
  const channelId = (team: string, name: string) => g.teams.find((t) => t.id === team)!.channels.find((c) => c.displayName === name)!.id;
  const sees = async (email: string) => {
    const ids = await visibleTo(h.t, id, email);
    const has = (channel: string) => ids.some((x) => x.startsWith(`message:${channel}:`));
    return { engGeneral: has(channelId(ENG, 'General')), incidents: has(channelId(ENG, 'Incidents')), partners: has(channelId(ENG, 'Partners')) };
  };

  it('team members read standard channels, a private channel’s roster reads it, nobody else does', async () => {
    assert.ok(g.requests.some((r) => r.path === `/v1.0/groups/${ENG}/transitiveMembers/microsoft.graph.user`));
    assert.deepEqual(await sees('robin.kline@contoso.com'), { engGeneral: true, incidents: true, partners: false });
    assert.deepEqual(await sees('jane.smith@contoso.com'), { engGeneral: true, incidents: false, partners: true });
    assert.deepEqual(await sees('omar.haddad@contoso.com'), { engGeneral: false, incidents: true, partners: false });
    assert.deepEqual(await sees('eve@contoso.com'), { engGeneral: false, incidents: false, partners: false });
  });

  it('a member removed at Microsoft loses the channel at the next sync; refused member lists are a notice', async () => {
    g.directory.groups[ENG] = [g.users[0]!.id];
    g.teams[0]!.channels.find((c) => c.displayName === 'Incidents')!.members = [g.users[0]!.id];
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.deepEqual(await sees('jane.smith@contoso.com'), { engGeneral: false, incidents: false, partners: true });
    assert.deepEqual(await sees('omar.haddad@contoso.com'), { engGeneral: false, incidents: false, partners: false });
    g.directory.refused = true;
    g.channelMembersRefused = true;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle');
    assert.match(String(c.status_reason), /GroupMember\.Read\.All.*ChannelMember\.Read\.All/);
    assert.equal((await sees('robin.kline@contoso.com')).engGeneral, true, 'the last known members stay');
  });
});
