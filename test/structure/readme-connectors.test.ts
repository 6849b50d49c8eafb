import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { README, withConnectorList } from '../../scripts/connector-list.ts';

describe('README', () => {
  it('lists exactly the catalogue’s connector kinds (regenerate with `node --import tsx scripts/connector-list.ts`)', () => {
    const readme = readFileSync(README, 'utf8');
    assert.equal(withConnectorList(readme), readme);
  });
});
