import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { SourceContext } from '../kit/index.ts';
import { channelAcl, displayName, postText } from './map.ts';
import type { MattermostCredentials, MattermostSettings } from './schemas.ts';
import { mattermostSync } from './sync.ts';

const post = (i: number, extra: Record<string, unknown> = {}) => ({ id: `p${i}`, create_at: i, update_at: i, delete_at: 0, user_id: 'u1', channel_id: 'c1', root_id: '', message: `m${i}`, type: '', ...extra });

/** A context whose fetch answers from `reply` (no network): what a page asks and does with the answer. */
function ctxWith(reply: (url: URL) => unknown): { ctx: SourceContext<MattermostCredentials, MattermostSettings>; urls: URL[] } {
  const urls: URL[] = [];
  const ctx: SourceContext<MattermostCredentials, MattermostSettings> = {
    connectorId: 'mattermost-1',
    tenantId: 't',
    credentials: { token: 'tok' },
    settings: { site_url: 'https://chat.acme.test', sync_private: false },
    apiBaseUrl: 'https://chat.acme.test',
    fetch: async (input) => {
      const u = new URL(String(input));
      urls.push(u);
      return Response.json(reply(u));
    },
    acquire: async () => {},
    signal: new AbortController().signal,
    now: new Date(0),
    log: pino({ level: 'silent' }),
    stored: async () => [],
  };
  return { ctx, urls };
}

describe('mattermost posts paging', () => {
  const channel = { id: 'c1', name: 'town-square', display: 'Town Square', team: 'acme', private: false };
  const start = { ...mattermostSync.start('incremental', { channels: { c1: 5 } }, { site_url: 'https://chat.acme.test', sync_private: false }), phase: 'posts' as const, channels: [channel], index: 0 };

  it('a `since` answer at the 1000-post limit re-reads the channel by pages (the oldest changes would be missing)', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => post(1000 - i + 5));
    const { ctx, urls } = ctxWith(() => ({ order: many.map((p) => p.id), posts: Object.fromEntries(many.map((p) => [p.id, p])) }));
    const r = await mattermostSync.readPage(ctx, { ...start, page: null });
    assert.equal(urls[0]?.searchParams.get('since'), '5');
    assert.equal(r.documents.length, 1000);
    assert.equal(r.next?.page, 0, 'next: page 0 of the same channel');
    assert.equal(r.next?.index, 0);
    assert.equal(r.cursor?.channels.c1, 1005);
  });

  it('`since` deletions: delete_at marks the post deleted; a short answer moves to the next channel', async () => {
    const { ctx } = ctxWith(() => ({ order: ['p7', 'p6'], posts: { p7: post(7, { delete_at: 9, message: '' }), p6: post(6), p1: post(1) } }));
    const r = await mattermostSync.readPage(ctx, { ...start, page: null });
    assert.deepEqual(r.deleted, ['post:c1:p7']);
    assert.deepEqual(r.documents.map((d) => d.external_id), ['post:c1:p6'], 'the extra root p1 in `posts` is not part of the answer');
    assert.equal(r.next, null);
    assert.equal(r.cursor?.channels.c1, 9);
  });
});

describe('mattermost mapping', () => {
  it('names people by full name, nickname or username; private channels by group', () => {
    assert.equal(displayName({ id: 'u', username: 'bob', first_name: '', last_name: '', nickname: 'Bobby' }), 'Bobby');
    assert.equal(displayName({ id: 'u', username: 'bob' }), 'bob');
    assert.deepEqual(channelAcl({ id: 'c9', private: true }), { groups: ['mattermost:channel:c9'] });
    assert.equal(postText({ ...post(1), message: 'hi', props: { attachments: [{ fallback: 'fb only' }] }, metadata: { files: [{ name: 'a.pdf' }] } }), 'hi\nfb only\nAttachments: a.pdf');
  });
});
