import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { spawnServer } from '../support/spawn.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM}` : false;

/** The first run of a brand-new instance, as a person meets it: the banner, and the one-time link to the first key. */
describe('first run: the start banner and the one-time setup code', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-first-run-'));
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  /** The banner follows the first health answer by a moment (the setup code is stored first). */
  const banner = async (served: { output(): string }) => {
    for (let i = 0; i < 100 && !/Data: /.test(served.output()); i++) await new Promise((r) => setTimeout(r, 100));
    return served.output();
  };
  const post = (url: string, body: unknown) => fetch(`${url}/v1/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('names the console, API docs and data folder, offers a setup link that creates one admin key once, and never again', async () => {
    const first = await spawnServer({ ATRIUM_DATA_DIR: dataDir, LOG_FORMAT: 'json' });
    let code: string;
    try {
      const out = await banner(first);
      assert.match(out, /Atrium \S+ is running \(API and worker\)/);
      assert.ok(out.includes(`Console:   ${first.url}/`), out);
      assert.ok(out.includes(`API docs:  ${first.url}/docs/api`));
      assert.ok(out.includes(`Data:      ${path.resolve(dataDir)} (embedded PostgreSQL: PGlite)`));
      const m = /\/setup#code=(setup_[A-Za-z0-9_-]+)/.exec(out);
      assert.ok(m?.[1], out);
      code = m[1];
      // JSON logs stay JSON: the code is only in the plain-text banner, never in a log line.
      const logLines = out.split('\n').filter((l) => l.startsWith('{'));
      assert.ok(logLines.length > 0);
      for (const l of logLines) {
        JSON.parse(l);
        assert.ok(!l.includes(code), 'the setup code in a log line');
      }
      assert.deepEqual(await (await fetch(`${first.url}/v1/setup`)).json(), { setup_required: true });
      const wrong = await post(first.url, { code: 'setup_wrong' });
      assert.equal(wrong.status, 401);
      assert.match((await wrong.json()).error.message, /wrong, used or expired/);
      const made = await post(first.url, { code, name: 'ada' });
      assert.equal(made.status, 201);
      const key = (await made.json()) as { key: string; permissions: string[]; name: string };
      assert.deepEqual([key.name, key.permissions], ['ada', ['admin']]);
      const me = await fetch(`${first.url}/v1/me`, { headers: { authorization: `Bearer ${key.key}` } });
      assert.equal(me.status, 200);
      assert.ok(((await me.json()) as { permissions: string[] }).permissions.includes('admin'));
      assert.equal((await post(first.url, { code })).status, 401, 'spent');
      assert.deepEqual(await (await fetch(`${first.url}/v1/setup`)).json(), { setup_required: false });
      const audit = await fetch(`${first.url}/v1/audit?action=apikey.created`, { headers: { authorization: `Bearer ${key.key}` } });
      assert.match(await audit.text(), /setup_code/);
    } finally {
      await first.stop();
    }
    // A key exists now: the next start offers no setup link.
    const second = await spawnServer({ ATRIUM_DATA_DIR: dataDir });
    try {
      const out = await banner(second);
      assert.doesNotMatch(out, /setup#code=/);
      assert.match(out, /Console: {3}/);
      assert.equal((await post(second.url, { code })).status, 401);
    } finally {
      await second.stop();
    }
  });

  it('the setup link opens the console, which makes the key, shows it once and signs in with it', { skip: noBrowser }, async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-first-run-ui-'));
    const served = await spawnServer({ ATRIUM_DATA_DIR: dir });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    try {
      const link = /(http:\/\/\S+\/setup#code=setup_[A-Za-z0-9_-]+)/.exec(await banner(served))?.[1];
      assert.ok(link);
      const page = await browser.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(link);
      await page.getByRole('heading', { name: 'Create the first admin key' }).waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the code is taken out of the address bar');
      assert.match(await page.getByLabel('Setup code').inputValue(), /^setup_/);
      await page.getByLabel('Key name').fill('ops');
      await page.getByRole('button', { name: 'Create the admin key' }).click();
      const key = await page.getByTestId('setup-key').inputValue();
      assert.match(key, /^atr_/);
      await page.getByRole('button', { name: 'Continue to the console' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/connectors');
      assert.ok(await page.getByRole('link', { name: 'API keys' }).isVisible(), 'signed in as an admin');
      // The link is spent: opening it again says the instance is set up.
      const again = await browser.newPage();
      await again.goto(link);
      await again.getByRole('heading', { name: 'This instance is set up' }).waitFor();
    } finally {
      await browser.close();
      await served.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
