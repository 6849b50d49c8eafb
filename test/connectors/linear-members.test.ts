import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeLinear, seedLinear, startFakeLinear } from '../fakes/linear.ts';
import { syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/** Issue 24: each team's members (`team(id) { members }`) are the `linear:team:<id>` group's members. */
describe('linear: team items read by the team’s members', () => {
  let lin: FakeLinear;
  let h: KindHarness;
  let id: string;
  before(async () => {
    lin = await startFakeLinear(seedLinear({ issuesPerTeam: 2 }));
    ({ h, id } = await syncedHarness('linear', lin.url, { credentials: { api_key: lin.apiKey }, settings: { include_comments: false } }));
  });
  after(async () => {
    await h.close();
    await lin.close();
  });
  const team = (key: string) => lin.data.teams.find((t) => t.key === key)!;
  const issuesOf = (key: string) => lin.data.issues.filter((i) => i.team.key === key && !i.archivedAt).map((i) => `issue:${i.id}`).sort();
  const issues = (ids: string[]) => ids.filter((x) => x.startsWith('issue:')).sort();

  it('a team’s issues are read by its members (emails from Linear) and by nobody else', async () => {
    assert.ok(lin.calls.some((c) => c.operation === 'TeamMembers'), 'members read during the sync');
    const ada = issues(await visibleTo(h.t, id, 'ada@atrium.test'));
    const alan = issues(await visibleTo(h.t, id, 'alan@atrium.test'));
    const eve = issues(await visibleTo(h.t, id, 'eve@atrium.test'));
    assert.deepEqual(ada, issuesOf('ENG'));
    assert.deepEqual(alan, issuesOf('DES'));
    assert.deepEqual(eve, [], 'in no team');
  });

  it('a member removed from the team at Linear loses its issues at the next sync', async () => {
    const eng = team('ENG');
    const grace = lin.data.users.find((u) => u.email === 'grace@atrium.test')!;
    assert.deepEqual(issues(await visibleTo(h.t, id, 'grace@atrium.test')), issuesOf('ENG'));
    lin.data.teamMembers[eng.id] = lin.data.teamMembers[eng.id]!.filter((x) => x !== grace.id);
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.deepEqual(issues(await visibleTo(h.t, id, 'grace@atrium.test')), []);
    assert.deepEqual(issues(await visibleTo(h.t, id, 'ada@atrium.test')), issuesOf('ENG'));
  });
});
