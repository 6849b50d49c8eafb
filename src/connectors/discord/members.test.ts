import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canView } from './members.ts';

const VIEW = String(1 << 10);
const g = { id: 'G', owner_id: 'O', roles: [{ id: 'G', permissions: VIEW }, { id: 'ADM', permissions: String(1 << 3) }, { id: 'R', permissions: '0' }, { id: 'MUTED', permissions: '0' }] };
const hidden = [{ id: 'G', type: 0 as const, allow: '0', deny: VIEW }];

describe('discord canView (permission overwrites)', () => {
  it('follows Discord’s order: @everyone, then role overwrites, then the member’s own', () => {
    assert.equal(canView({ id: 'u', roles: [] }, g, []), true, 'no overwrite: @everyone may view');
    assert.equal(canView({ id: 'u', roles: [] }, g, hidden), false);
    assert.equal(canView({ id: 'u', roles: ['R'] }, g, [...hidden, { id: 'R', type: 0, allow: VIEW, deny: '0' }]), true, 'role allow beats @everyone deny');
    assert.equal(canView({ id: 'u', roles: ['R', 'MUTED'] }, g, [...hidden, { id: 'R', type: 0, allow: VIEW, deny: '0' }, { id: 'MUTED', type: 0, allow: '0', deny: VIEW }]), true, 'role allows win over role denies');
    assert.equal(canView({ id: 'u', roles: ['R'] }, g, [...hidden, { id: 'R', type: 0, allow: VIEW, deny: '0' }, { id: 'u', type: 1, allow: '0', deny: VIEW }]), false, 'the member overwrite is last');
    assert.equal(canView({ id: 'u', roles: ['ADM'] }, g, [...hidden, { id: 'u', type: 1, allow: '0', deny: VIEW }]), true, 'ADMINISTRATOR ignores overwrites');
    assert.equal(canView({ id: 'O', roles: [] }, g, hidden), true, 'the owner sees everything');
  });
});
