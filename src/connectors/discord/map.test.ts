import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketWaitMs, retryAfterMs } from './client.ts';
import { isPrivateChannel, laterId, renderDiscordText } from './map.ts';

describe('discord mapping and rate-limit headers', () => {
  it('a channel is private when @everyone (role id = guild id) is denied VIEW_CHANNEL', () => {
    const g = '100';
    assert.equal(isPrivateChannel({ permission_overwrites: [{ id: g, type: 0, allow: '0', deny: '1024' }] }, g), true);
    assert.equal(isPrivateChannel({ permission_overwrites: [{ id: g, type: 0, allow: '0', deny: '2048' }] }, g), false);
    assert.equal(isPrivateChannel({ permission_overwrites: [{ id: '7', type: 0, allow: '0', deny: '1024' }] }, g), false, 'another role');
    assert.equal(isPrivateChannel({ permission_overwrites: [{ id: g, type: 1, allow: '0', deny: '1024' }] }, g), false, 'a member overwrite');
    assert.equal(isPrivateChannel({}, g), false);
  });

  it('renders mentions, channel links, custom emoji and timestamps as text', () => {
    const users = [{ id: '1', username: 'ada', global_name: 'Ada L' }];
    assert.equal(renderDiscordText('hi <@1> and <@!1> in <#9>, <@&5> <:party:123> <t:0:F>', users, { 9: 'general' }), 'hi @Ada L and @Ada L in #general, @role :party: 1970-01-01T00:00:00.000Z');
  });

  it('compares snowflakes as integers', () => {
    assert.equal(laterId('99', '100'), '100');
    assert.equal(laterId(null, '5'), '5');
  });

  it('waits out a spent bucket (Remaining 0, Reset-After) and prefers the 429 body retry_after', () => {
    const h = (m: Record<string, string>) => (name: string) => m[name] ?? null;
    assert.equal(bucketWaitMs(h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.25' })), 1250);
    assert.equal(bucketWaitMs(h({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset-after': '1.25' })), 0);
    assert.equal(bucketWaitMs(h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '3600' })), 60_000);
    assert.equal(retryAfterMs({ retry_after: 0.35, global: false }, '1'), 350);
    assert.equal(retryAfterMs({}, '2'), 2000);
  });
});
