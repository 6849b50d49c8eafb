import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeGitHub, type FakeRepo, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { mapAccount, syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/** Issue 24: a private repository's collaborators (affiliation=all) are the `github:<owner/repo>` group's members. */
describe('github: private repositories read by their collaborators', () => {
  let gh: FakeGitHub;
  let h: KindHarness;
  let id: string;
  let vault: FakeRepo;
  before(async () => {
    vault = { ...seededRepo('acme/vault', 1, { private: true }), collaborators: [{ id: 101, login: 'ada' }, { id: 102, login: 'bob', role_name: 'read' }] };
    const locked = { ...seededRepo('acme/locked', 1, { private: true }), collaborators: 'forbidden' as const };
    gh = await startFakeGitHub({ repos: [seededRepo('acme/open', 1), vault, locked] });
    ({ h, id } = await syncedHarness('github', gh.url, { credentials: { access_token: gh.token }, settings: { file_extensions: ['.md'] } }));
    // GitHub gives collaborators no email: an admin maps the accounts once (kept across syncs).
    await mapAccount(h.t, 'github:101', 'ada@acme.test');
    await mapAccount(h.t, 'github:102', 'bob@acme.test');
  });
  after(async () => {
    await h.close();
    await gh.close();
  });
  const vaultDocs = (ids: string[]) => ids.filter((x) => x.includes('acme/vault'));
  const openDocs = (ids: string[]) => ids.filter((x) => x.includes('acme/open'));

  it('collaborators read the private repository; others read only the public one; a refused list is a notice, not a failure', async () => {
    assert.ok(gh.requests.some((r) => r.startsWith('GET /repos/acme/vault/collaborators?') && r.includes('affiliation=all')), gh.requests.join('\n'));
    const ada = await visibleTo(h.t, id, 'ada@acme.test');
    const bob = await visibleTo(h.t, id, 'bob@acme.test');
    const eve = await visibleTo(h.t, id, 'eve@acme.test');
    assert.ok(vaultDocs(ada).length >= 2, ada.join(' '));
    assert.deepEqual(vaultDocs(bob), vaultDocs(ada));
    assert.deepEqual(vaultDocs(eve), [], 'not a collaborator');
    assert.deepEqual(openDocs(eve), openDocs(ada), 'the public repository is everyone’s');
    assert.ok(openDocs(eve).length >= 2);
    assert.ok(!ada.some((x) => x.includes('acme/locked')), 'a repository whose readers are unknown reaches nobody');
    const c = await h.get(id);
    assert.match(String(c.status_reason), /refused the collaborator list of 1 private repository \(acme\/locked\)/);
  });

  it('a collaborator removed at GitHub loses the repository at the next sync', async () => {
    vault.collaborators = [{ id: 101, login: 'ada' }];
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.deepEqual(vaultDocs(await visibleTo(h.t, id, 'bob@acme.test')), []);
    assert.ok(vaultDocs(await visibleTo(h.t, id, 'ada@acme.test')).length >= 2);
  });
});
