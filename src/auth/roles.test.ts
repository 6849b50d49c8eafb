import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roleForGroups } from './roles.ts';

describe('roleForGroups', () => {
  const mapping = { admins: 'admin', eng: 'member', readers: 'viewer' } as const;
  it('takes the most privileged mapped role', () => {
    assert.equal(roleForGroups(['readers', 'eng'], mapping, 'viewer'), 'member');
    assert.equal(roleForGroups(['eng', 'admins', 'readers'], mapping, 'viewer'), 'admin');
  });
  it('falls back to the default role for unmapped or no groups', () => {
    assert.equal(roleForGroups([], mapping, 'viewer'), 'viewer');
    assert.equal(roleForGroups(['sales'], mapping, 'member'), 'member');
  });
  it('matches exactly and ignores inherited object keys', () => {
    assert.equal(roleForGroups(['Admins', 'toString', '__proto__', 'constructor'], mapping, 'viewer'), 'viewer');
  });
  it('a mapped lower role beats a higher default (the mapping is explicit)', () => {
    assert.equal(roleForGroups(['readers'], mapping, 'member'), 'viewer');
  });
});
