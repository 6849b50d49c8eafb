// The connector page's live sync-progress block in Chromium: a real Zulip connector syncs from the local Zulip fake,
// slowed down so the sync lasts several page refreshes; the block appears, its counts grow while the sync runs, and
// it gives way to the finished run in the history. (The API side is test/connectors/sync-progress.test.ts.)
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type FakeZulip, startFakeZulip } from '../fakes/zulip.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { checkedShot, launch, noBrowser, signIn } from './browser.ts';
import { apiCaller } from './http.ts';

let t: TestApp;
let zu: FakeZulip;
let base: string;
let browser: Browser;
let page: Page;
const call = apiCaller(() => base);

describe('connector page: live sync progress in Chromium', { timeout: 300_000, skip: noBrowser }, () => {
  before(async () => {
    zu = await startFakeZulip();
    t = await createTestApp({
      env: {
        ATRIUM_JOB_POLL_MS: '50',
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ zulip: zu.url }),
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
      },
    });
    t.runtime.worker.start();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(30_000);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await zu?.close();
  });

  it('shows a running sync with its counts growing, then the finished run', async () => {
    const created = await call<{ connector_id: string }>('POST', '/v1/connectors', {
      connector_type: 'zulip',
      display_name: 'Team chat',
      credentials: { email: zu.email, api_key: zu.apiKey },
      settings: { site_url: 'https://acme.zulipchat.com' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.connector_id;
    // The validation job connects it (the in-process worker runs it).
    for (let i = 0; i < 200; i++) {
      const c = await call<{ status: string }>('GET', `/v1/connectors/${id}`);
      if (c.json.status === 'connected' || c.json.status === 'active') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await call('GET', `/v1/connectors/${id}`).then((c) => assert.notEqual((c.json as { status: string }).status, 'connecting'));
    // Every page of messages now takes 1.5 s: the sync spans several of the page's 4-second refreshes.
    zu.fake.slowNext(40, 1500, (req) => req.path === '/api/v1/messages');

    await signIn(page, base, ADMIN_KEY);
    await page.goto(`${base}/connectors/${encodeURIComponent(id)}`);
    await page.getByRole('heading', { name: 'Team chat' }).waitFor();
    await page.getByRole('button', { name: 'Full sync' }).click();
    const block = page.getByTestId('sync-progress');
    await block.waitFor({ timeout: 30_000 });
    assert.match((await block.getByRole('heading').textContent()) ?? '', /Full sync in progress/);
    assert.equal(await block.locator('progress[aria-label="Sync in progress"]').count(), 1);
    const first = (await block.textContent()) ?? '';
    assert.match(first, /\d+ documents read over \d+ pages?: \d+ new, \d+ changed, \d+ unchanged, \d+ removed · started/);
    const readCount = (s: string) => Number(/(\d[\d,]*) documents read/.exec(s)?.[1]?.replace(/,/g, '') ?? Number.NaN);
    // Live: a later refresh, still running, shows more documents read than the first one did.
    await page.waitForFunction(
      ([before]) => {
        const el = document.querySelector('[data-testid=sync-progress]');
        const m = /(\d[\d,]*) documents read/.exec(el?.textContent ?? '');
        return m?.[1] !== undefined && Number(m[1].replace(/,/g, '')) > Number(before);
      },
      [readCount(first)],
      { timeout: 60_000, polling: 200 },
    );
    const later = (await block.textContent()) ?? '';
    assert.ok(readCount(later) > readCount(first), `${first} → ${later}`);
    await checkedShot(page, 'sync-progress', ['Full sync in progress', 'documents read over']);
    // Finished: the block goes, the history shows the completed run with what it added.
    await block.waitFor({ state: 'detached', timeout: 120_000 });
    const run = (await call<{ sync_runs: { status: string; added: number }[] }>('GET', `/v1/connectors/${id}`)).json.sync_runs[0];
    assert.equal(run?.status, 'completed');
    const row = page.locator('section[aria-labelledby=history-h] tbody tr').first();
    await row.getByText('completed').waitFor();
    assert.ok((run?.added ?? 0) >= readCount(later));
  });
});
