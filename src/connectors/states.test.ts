import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONNECTOR_EVENTS, CONNECTOR_STATES, nextState, resumeTarget, syncBlockedReason, TRANSITIONS } from './states.ts';

describe('connector state machine', () => {
  it('follows the documented happy path', () => {
    const path: [string, string, string][] = [
      ['connecting', 'credentials_valid', 'connected'],
      ['connected', 'sync_started', 'syncing'],
      ['syncing', 'vendor_rate_limited', 'rate_limited'],
      ['rate_limited', 'rate_limit_cleared', 'syncing'],
      ['syncing', 'sync_completed', 'idle'],
      ['idle', 'sync_started', 'syncing'],
      ['syncing', 'sync_failed', 'error'],
      ['error', 'sync_started', 'syncing'],
    ];
    for (const [from, event, to] of path) {
      assert.deepEqual(nextState(from as never, event as never), { ok: true, to }, `${from} --${event}-->`);
    }
  });

  it('refuses every transition not in the table', () => {
    let refused = 0;
    for (const from of CONNECTOR_STATES) {
      for (const event of CONNECTOR_EVENTS) {
        const r = nextState(from, event);
        assert.equal(r.ok, TRANSITIONS[event].from.includes(from), `${from} ${event}`);
        if (!r.ok) refused++;
      }
    }
    assert.ok(refused > 50);
    assert.equal(nextState('syncing', 'sync_started').ok, false);
    assert.equal(nextState('paused', 'sync_started').ok, false);
    assert.equal(nextState('disconnected', 'sync_started').ok, false);
    assert.equal(nextState('paused', 'pause').ok, false);
  });

  it('resumes to where the pause interrupted, a running sync to connected', () => {
    assert.deepEqual(nextState('paused', 'resume', 'idle'), { ok: true, to: 'idle' });
    assert.deepEqual(nextState('paused', 'resume', 'syncing'), { ok: true, to: 'connected' });
    assert.equal(resumeTarget('rate_limited'), 'connected');
    assert.equal(resumeTarget(null), 'connected');
  });

  it('explains why a sync cannot start', () => {
    assert.match(syncBlockedReason('syncing') ?? '', /already running/);
    assert.match(syncBlockedReason('rate_limited') ?? '', /already running/);
    assert.match(syncBlockedReason('paused') ?? '', /paused/);
    assert.match(syncBlockedReason('disconnected') ?? '', /disconnected/);
    assert.equal(syncBlockedReason('idle'), null);
    assert.equal(syncBlockedReason('error'), null);
  });
});
