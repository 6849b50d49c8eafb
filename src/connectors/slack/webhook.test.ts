import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelInScope, slackSignature, verifySlackRequest } from './webhook.ts';

// The worked example of Slack's "Verifying requests from Slack" (a slash-command body, signed the same way as events).
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TS = '1531420618';
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

describe('slack request verification', () => {
  const at = (seconds: number) => new Date((Number(TS) + seconds) * 1000);

  it("reproduces Slack's documented signature and accepts it within 5 minutes", () => {
    assert.equal(slackSignature(SECRET, TS, BODY), SIGNATURE);
    assert.deepEqual(verifySlackRequest({ signature: SIGNATURE, timestamp: TS, rawBody: BODY, secret: SECRET, now: at(299) }), { ok: true });
    assert.deepEqual(verifySlackRequest({ signature: SIGNATURE, timestamp: TS, rawBody: BODY, secret: SECRET, now: at(-299) }), { ok: true });
  });

  it('refuses stale or future timestamps, missing headers, other secrets, bodies and timestamps', () => {
    const check = (o: Partial<Parameters<typeof verifySlackRequest>[0]>) => verifySlackRequest({ signature: SIGNATURE, timestamp: TS, rawBody: BODY, secret: SECRET, now: at(0), ...o });
    assert.match(String((check({ now: at(301) }) as { reason: string }).reason), /5 minute window/);
    assert.equal(check({ now: at(-301) }).ok, false);
    assert.equal(check({ signature: undefined }).ok, false);
    assert.equal(check({ timestamp: undefined }).ok, false);
    assert.equal(check({ timestamp: 'yesterday' }).ok, false);
    assert.equal(check({ secret: 'other' }).ok, false);
    assert.equal(check({ rawBody: `${BODY}&x=1` }).ok, false);
    // The timestamp is part of the signed base string: a fresh timestamp on an old signature fails.
    assert.equal(check({ timestamp: String(Number(TS) + 1), now: at(1) }).ok, false);
    assert.equal(check({ signature: 'v0=abc' }).ok, false);
  });

  it("scopes channels like the sync: listed names or ids; private ones only with sync_private", () => {
    const pub = { id: 'C1', name: 'general', is_private: false };
    const priv = { id: 'G1', name: 'secret', is_private: true };
    const s = (o: Record<string, unknown>) => ({ sync_private: false, ...o }) as Parameters<typeof channelInScope>[0];
    assert.equal(channelInScope(s({}), pub), true);
    assert.equal(channelInScope(s({}), priv), false);
    assert.equal(channelInScope(s({ sync_private: true }), priv), true);
    assert.equal(channelInScope(s({ channels: ['general'] }), pub), true);
    assert.equal(channelInScope(s({ channels: ['C1'] }), pub), true);
    assert.equal(channelInScope(s({ channels: ['random'] }), pub), false);
    assert.equal(channelInScope(s({ channels: ['secret'] }), priv), false);
  });
});
