import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OVERFETCH, planDamping } from './damping.ts';

describe('homeostasis damping', () => {
  it('is active exactly when entropy exceeds the threshold', () => {
    assert.equal(planDamping(2, 10).active, false);
    assert.equal(planDamping(2.0001, 10).active, true);
    assert.equal(planDamping(1.5, 10, 1.0).active, true);
    assert.equal(planDamping(2.5, 10, 3).active, false);
  });

  it('surfaces fewer results as entropy grows and shrinks the per-node budget with them', () => {
    const calm = planDamping(1, 10);
    assert.deepEqual(calm, { active: false, threshold: 2, surfaced: 10, per_node_budget: 10 * OVERFETCH });
    const busy = planDamping(4, 10);
    assert.equal(busy.surfaced, 5);
    assert.equal(busy.per_node_budget, 5 * OVERFETCH);
    assert.ok(planDamping(8, 10).surfaced < busy.surfaced);
    assert.equal(planDamping(1000, 10).surfaced, 1);
  });
});
