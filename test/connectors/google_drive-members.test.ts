import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeDrive, seedDrive, startFakeDrive } from '../fakes/google-drive.ts';
import { syncedHarness, visibleTo } from './acl-support.ts';
import type { KindHarness } from './support.ts';

/**
 * Issue 24: Google groups (Admin SDK Directory API, nested groups expanded) and shared drives' members resolve the
 * `google_drive:<group email>` and `google_drive:<drive id>` ACL groups.
 */
describe('google_drive: files shared with a Google group and shared drives, read by their members', () => {
  let drive: FakeDrive;
  let h: KindHarness;
  let id: string;
  before(async () => {
    drive = await startFakeDrive({
      seed: (tick) => {
        const d = seedDrive(tick);
        // The Atlas design is shared with the Eng group only (no domain-wide permission).
        const atlas = d.files.find((f) => f.id === 'doc-atlas')!;
        atlas.permissions = atlas.permissions!.filter((p) => p.type !== 'domain');
        return d;
      },
    });
    ({ h, id } = await syncedHarness('google_drive', drive.url, { credentials: { access_token: drive.token }, settings: {} }));
  });
  after(async () => {
    await h.close();
    await drive.close();
  });
  const sees = async (email: string) => {
    const ids = await visibleTo(h.t, id, email);
    return { atlas: ids.includes('file:doc-atlas'), oncall: ids.includes('file:txt-oncall'), brand: ids.includes('file:docx-brand') };
  };

  it('group members (nested groups too) read the group’s file; shared drive members (direct or through a group) read its files', async () => {
    assert.ok(drive.fake.requests.some((r) => r.path === '/admin/directory/v1/groups' && r.query.customer === 'my_customer'));
    assert.ok(drive.fake.requests.some((r) => r.path === '/admin/directory/v1/groups/grp-eng/members' && r.query.includeDerivedMembership === 'true'));
    assert.deepEqual(await sees('grace@atrium.test'), { atlas: true, oncall: true, brand: false }, 'in the Eng group');
    assert.deepEqual(await sees('linus@atrium.test'), { atlas: true, oncall: true, brand: false }, 'in on-call, nested in Eng');
    assert.deepEqual(await sees('ada@atrium.test'), { atlas: true, oncall: true, brand: true }, 'owner; member of both drives');
    assert.deepEqual(await sees('bob@partner.test'), { atlas: false, oncall: false, brand: false });
  });

  it('a member removed from a group at Google loses its files at the next sync; a refused Directory API is a notice', async () => {
    drive.data.directory!.groups.find((g) => g.id === 'grp-oncall')!.members = [];
    assert.equal((await h.sync(id, false)).status, 'idle');
    assert.deepEqual(await sees('linus@atrium.test'), { atlas: false, oncall: false, brand: false });
    assert.equal((await sees('grace@atrium.test')).atlas, true);
    drive.data.directory!.directoryRefused = true;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle');
    assert.match(String(c.status_reason), /Google refused the Directory API/);
    assert.equal((await sees('grace@atrium.test')).atlas, true, 'the last known members stay');
  });
});
