import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { githubActions } from '../github/actions.ts';
import { planWithRules } from './rules.ts';

describe('rule-based action planner', () => {
  it('maps create-issue intents, context first', () => {
    assert.deepEqual(planWithRules(githubActions, 'Open a bug in acme/web: login fails', {}), {
      ok: true,
      calls: [{ action: 'create_issue', parameters: { repository: 'acme/web', title: 'login fails' } }],
    });
    assert.deepEqual(planWithRules(githubActions, 'create an issue', { repository: 'a/b', title: 'T', body: 'B' }), {
      ok: true,
      calls: [{ action: 'create_issue', parameters: { repository: 'a/b', title: 'T', body: 'B' } }],
    });
  });

  it('maps comments with the issue number from #n', () => {
    assert.deepEqual(planWithRules(githubActions, 'Comment on acme/api#12: "fixed in 2.1"', {}), {
      ok: true,
      calls: [{ action: 'comment_on_issue', parameters: { repository: 'acme/api', issue_number: 12, body: 'fixed in 2.1' } }],
    });
  });

  it('refuses what it does not understand, naming what it does', () => {
    const r = planWithRules(githubActions, 'archive everything', {});
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.reason, /create_issue, comment_on_issue/);
  });
});
