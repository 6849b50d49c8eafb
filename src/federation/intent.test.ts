import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INTENT_DIMENSIONS, INTENT_RULES, inferIntent, resolveIntent } from './intent.ts';

describe('intent inference', () => {
  it('returns the base values for a neutral query', () => {
    const i = inferIntent('quarterly revenue report');
    for (const d of INTENT_DIMENSIONS) assert.equal(i[d], INTENT_RULES[d].base, d);
  });

  it('raises urgency with urgent language and more with more cues', () => {
    const one = inferIntent('payments outage');
    const two = inferIntent('urgent: payments outage right now!');
    assert.equal(one.urgency, 0.52); // 1 - 0.8 * 0.6
    assert.ok(two.urgency > one.urgency && two.urgency < 1);
  });

  it('detects action, social, context and emotional cues', () => {
    assert.ok(inferIntent('how do I deploy the billing service').action_likelihood > 0.6);
    assert.ok(inferIntent('what did the team discuss in the standup meeting').social_dimension > 0.6);
    assert.ok(inferIntent('my latest tickets from yesterday').context_sensitivity > 0.7);
    assert.ok(inferIntent('customers are frustrated and angry about the complaint backlog').emotional_weight > 0.6);
    const neutral = inferIntent('architecture overview');
    assert.equal(neutral.action_likelihood, 0.3);
  });

  it('is deterministic and bounded', () => {
    const q = 'URGENT!!! fix the outage now, team, my deploy is broken and I am frustrated';
    assert.deepEqual(inferIntent(q), inferIntent(q));
    for (const d of INTENT_DIMENSIONS) assert.ok(inferIntent(q)[d] >= 0 && inferIntent(q)[d] <= 1);
  });

  it('lets given dimensions override inferred ones one by one', () => {
    const inferred = inferIntent('payments outage');
    const r = resolveIntent({ urgency: 0 }, inferred);
    assert.equal(r.urgency, 0);
    assert.equal(r.social_dimension, inferred.social_dimension);
    assert.deepEqual(resolveIntent(null, inferred), inferred);
  });
});
