import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapIdentity } from './attributes.ts';

describe('mapIdentity', () => {
  it('uses the common attribute names by default', () => {
    const r = mapIdentity({ mail: 'Ada@Example.com', firstName: 'Ada', lastName: 'Lovelace', memberOf: ['a', 'b', 'a'] }, {});
    assert.deepEqual(r, { identity: { email: 'ada@example.com', name: 'Ada Lovelace', groups: ['a', 'b'] } });
  });
  it('prefers displayName, and reads OIDC claims', () => {
    const r = mapIdentity({ email: 'x@y.io', displayName: 'X', given_name: 'G' }, {});
    assert.ok('identity' in r && r.identity.name === 'X');
    const o = mapIdentity({ email: 'x@y.io', given_name: 'Grace', family_name: 'Hopper', groups: 'solo' }, {});
    assert.deepEqual(o, { identity: { email: 'x@y.io', name: 'Grace Hopper', groups: ['solo'] } });
  });
  it('falls back to an email-shaped NameID', () => {
    assert.deepEqual(mapIdentity({}, {}, 'n@id.org'), { identity: { email: 'n@id.org', name: null, groups: [] } });
    const r = mapIdentity({}, {}, 'opaque-id-123');
    assert.ok('problem' in r && r.problem.code === 'sso_attribute_not_mapped' && r.problem.remedy === 'fix attribute_mapping');
  });
  it('follows an explicit mapping and reports a mapped attribute the IdP did not send', () => {
    const m = { email: 'urn:oid:mail', name: 'cn', groups: 'roles' };
    assert.deepEqual(mapIdentity({ 'urn:oid:mail': 'a@b.co', cn: 'A', roles: ['r'] }, m), { identity: { email: 'a@b.co', name: 'A', groups: ['r'] } });
    const missing = mapIdentity({ email: 'a@b.co', cn: 'A' }, { email: 'urn:oid:mail' });
    assert.ok('problem' in missing && missing.problem.code === 'sso_attribute_not_mapped');
    assert.match((missing as { problem: { message: string } }).problem.message, /urn:oid:mail.*it sent: email, cn/);
    const noName = mapIdentity({ email: 'a@b.co' }, { name: 'cn' });
    assert.ok('problem' in noName);
    // No groups attribute for a user in no group is not an error.
    assert.deepEqual(mapIdentity({ email: 'a@b.co' }, { groups: 'roles' }), { identity: { email: 'a@b.co', name: null, groups: [] } });
    assert.deepEqual(mapIdentity({}, { email: 'NameID' }, 'nid@x.org'), { identity: { email: 'nid@x.org', name: null, groups: [] } });
  });
  it('refuses a mapped value that is not an email address', () => {
    const r = mapIdentity({ email: 'not an email' }, {});
    assert.ok('problem' in r && r.problem.code === 'sso_attribute_not_mapped');
  });
});
