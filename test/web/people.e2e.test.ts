// End-to-end: the console's "People & access" page in Debian's Chromium (playwright-core) against the real service:
// an admin maps an unresolved Slack identity to a person by hand, and the person's view changes.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { replaceGroupMembers, upsertAccounts } from '../../src/identity/index.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { apiCaller } from './http.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve('test-artifacts/web');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : false;

describe('console: People & access', { timeout: 180_000, skip: noBrowser }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  const call = apiCaller(() => base);

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('slack-1', 'default', 'slack', 'Slack', 'idle')`);
    await upsertAccounts(t.db, 'default', 'slack-1', [
      { account_id: 'slack:U_ADA', email: 'ada@acme.test', display_name: 'Ada Lovelace' },
      { account_id: 'slack:U_CAR', display_name: 'Carol Hidden' },
    ]);
    await replaceGroupMembers(t.db, 'default', 'slack-1', [{ group_id: 'slack:C_SEC', members: ['slack:U_ADA', 'slack:U_CAR'] }]);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    // bypassCSP only lets the test inject axe-core (as test/web/console.e2e.test.ts does).
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Serious or critical WCAG 2.1 A/AA problems on the page (axe-core). */
  const a11y = async () => {
    await page.addScriptTag({ path: AXE });
    return page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null }[] }> } }).axe;
      const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    });
  };

  const signIn = async (key: string) => {
    await page.goto(`${base}/`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  };

  it('lists people and unresolved identities; mapping one by hand moves it to its person with its groups', async () => {
    await signIn(ADMIN_KEY);
    await page.getByRole('link', { name: 'People & access' }).click();
    await page.getByRole('heading', { name: 'People & access' }).waitFor();
    const people = page.getByRole('table', { name: 'People' });
    await people.getByRole('row', { name: /ada@acme\.test/ }).waitFor();
    assert.match((await people.getByRole('row', { name: /ada@acme\.test/ }).textContent()) ?? '', /slack:U_ADA.*slack:C_SEC/);
    const unresolved = page.getByRole('table', { name: 'Unresolved vendor identities' });
    const carol = unresolved.getByRole('row', { name: /slack:U_CAR/ });
    await carol.waitFor();
    assert.match((await carol.textContent()) ?? '', /Carol Hidden.*slack-1.*slack:C_SEC/);
    await page.screenshot({ path: path.join(SHOTS, 'people-before.png'), fullPage: true });
    assert.deepEqual(await a11y(), []);

    await page.getByLabel('Email for slack:U_CAR').fill('Carol@Partner.test');
    await page.getByRole('button', { name: 'Map' }).click();
    await page.getByRole('status').filter({ hasText: 'slack:U_CAR is now carol@partner.test.' }).waitFor();
    await page.getByText('Every vendor identity resolves to a person.').waitFor();
    const row = people.getByRole('row', { name: /carol@partner\.test/ });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Carol Hidden.*slack:U_CAR.*slack:C_SEC/);
    await page.screenshot({ path: path.join(SHOTS, 'people-after.png'), fullPage: true });

    // The API agrees, and the mapping is audited.
    const acct = await call<{ accounts: { account_id: string; mapped_email: string | null }[] }>('GET', '/v1/identity/accounts');
    assert.equal(acct.json.accounts.find((a) => a.account_id === 'slack:U_CAR')?.mapped_email, 'carol@partner.test');
  });

  it("shows the caller's own view: a person-bound key sees their vendor accounts and groups, and no directory", async () => {
    const key = await call<{ key: string }>('POST', '/v1/api-keys', { name: 'carol', permissions: ['query'], identity: { email: 'carol@partner.test' } });
    assert.equal(key.status, 201);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(key.json.key);
    await page.getByRole('link', { name: 'People & access' }).click();
    const you = page.getByRole('region', { name: 'Your access' });
    await you.getByText('carol@partner.test').waitFor();
    const text = (await you.textContent()) ?? '';
    assert.match(text, /slack:U_CAR/);
    assert.match(text, /slack:C_SEC/);
    assert.equal(await page.getByRole('heading', { name: 'Unresolved vendor identities' }).count(), 0, 'the directory is for admins');
  });
});
