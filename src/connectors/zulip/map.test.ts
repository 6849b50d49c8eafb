import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeHashComponent, renderZulipText, streamAcl } from './map.ts';

describe('zulip mapping', () => {
  it("encodes narrow URL parts like Zulip's web app", () => {
    assert.equal(encodeHashComponent('deploy pipeline'), 'deploy.20pipeline');
    assert.equal(encodeHashComponent('v1.2 (beta)'), 'v1.2E2.20.28beta.29');
  });

  it('renders mentions and channel links as text', () => {
    assert.equal(renderZulipText('@**Iago|11**, @_**King Hamlet** and @*backend* see #**eng>deploy** in #**design**'), '@Iago, @King Hamlet and @backend see #eng > deploy in #design');
  });

  it('invite-only channels → their group, others public', () => {
    assert.deepEqual(streamAcl({ id: 3, private: true }), { groups: ['zulip:stream:3'] });
    assert.deepEqual(streamAcl({ id: 1, private: false }), { public: true });
  });
});
