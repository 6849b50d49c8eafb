// Regression tests in Chromium for console defects an audit found: document urls of any scheme rendered as links,
// attacker text shown from ?sso_error=, sync buttons offered for push connectors, and a revoked key or ended
// session leaving the console "signed in" with a 401 on every page.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createSession } from '../../src/auth/sessions.ts';
import { upsertUser } from '../../src/auth/users.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { apiCaller } from './http.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : false;

let t: TestApp;
let base: string;
let browser: Browser;
let folder: string;
/** The service's clock runs with the system's, plus what a test moves it on by (to expire a session). */
let skewMs = 0;

const call = apiCaller(() => base);

/** The SSO callbacks redirect to ATRIUM_PUBLIC_URL, so the port is chosen before the app is built. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function newKey(name: string, permissions: string[]): Promise<{ id: string; key: string }> {
  const res = await call<{ id: string; key: string }>('POST', '/v1/api-keys', { name, permissions });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json;
}

/** A fresh browser context per test: sessionStorage and cookies do not leak between them. */
async function withPage(fn: (p: Page, ctx: BrowserContext) => Promise<void>): Promise<void> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const p = await ctx.newPage();
    p.setDefaultTimeout(15_000);
    await fn(p, ctx);
  } finally {
    await ctx.close();
  }
}

async function signIn(p: Page, key: string): Promise<void> {
  await p.goto(`${base}/`);
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.getByRole('navigation', { name: 'Main' }).waitFor();
}

async function apiConnector(name: string): Promise<string> {
  const created = await call<{ connector_id: string }>('POST', '/v1/connectors', { connector_type: 'api', display_name: name, credentials: {}, settings: {} });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return created.json.connector_id;
}

describe('web console safety in Chromium', { timeout: 180_000, skip: noBrowser }, () => {
  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'atrium-web-fs-'));
    writeFileSync(path.join(folder, 'readme.md'), '# Readme\n\nA file on the server.\n');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({
      env: { ATRIUM_JOB_POLL_MS: '50', ATRIUM_PUBLIC_URL: base, ATRIUM_FILESYSTEM_ROOTS: folder },
      clock: { now: () => new Date(Date.now() + skewMs) },
    });
    t.runtime.worker.start();
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('links only absolute http(s) document urls; other schemes and non-URLs are plain text', async () => {
    const id = await apiConnector('Mixed urls');
    const docs = [
      { external_id: 'web', url: 'https://wiki.example.com/zebrafish/web' },
      { external_id: 'file', url: 'file:///srv/share/zebrafish handbook.md' },
      { external_id: 'data', url: 'data:text/html,<script>alert(document.domain)</script>' },
      { external_id: 'msdt', url: 'ms-msdt:/id PCWDiagnostic /skip force' },
      { external_id: 'js', url: 'javascript:alert(document.domain)' },
      { external_id: 'relative', url: 'keys?steal=1' },
    ];
    const pushed = await call<{ documents: { id: string; external_id: string }[] }>('POST', `/v1/connectors/${id}/documents`, {
      documents: docs.map((d) => ({ ...d, title: `Zebrafish note ${d.external_id}`, content: `Zebrafish husbandry notes (${d.external_id}): water temperature and feeding.` })),
    });
    assert.equal(pushed.status, 200, JSON.stringify(pushed.json));
    const ids = new Map(pushed.json.documents.map((d) => [d.external_id, d.id]));

    await withPage(async (p) => {
      await signIn(p, ADMIN_KEY);
      // The document page.
      await p.goto(`${base}/documents/${encodeURIComponent(ids.get('web') ?? '')}`);
      const link = p.getByRole('link', { name: /Open in the source tool/ });
      await link.waitFor();
      assert.equal(await link.getAttribute('href'), 'https://wiki.example.com/zebrafish/web');
      assert.equal(await link.getAttribute('target'), '_blank');
      assert.deepEqual(((await link.getAttribute('rel')) ?? '').split(/\s+/).sort(), ['noopener', 'noreferrer']);

      for (const ext of ['file', 'data', 'msdt', 'js', 'relative']) {
        const doc = docs.find((d) => d.external_id === ext);
        await p.goto(`${base}/documents/${encodeURIComponent(ids.get(ext) ?? '')}`);
        await p.getByRole('heading', { name: `Zebrafish note ${ext}` }).waitFor();
        assert.equal(await p.getByRole('link', { name: /Open in the source tool/ }).count(), 0, `${ext}: not a link`);
        const shown = ext === 'file' ? '/srv/share/zebrafish handbook.md' : doc?.url;
        assert.equal(await p.getByTestId('source-text').locator('code').textContent(), shown, `${ext}: shown as text`);
      }

      // Search results.
      await p.goto(`${base}/search`);
      await p.getByLabel('Search query').fill('zebrafish husbandry');
      await p.getByRole('button', { name: 'Search', exact: true }).click();
      const results = p.getByTestId('result').filter({ hasText: 'Zebrafish note' });
      await p.waitForFunction(() => document.querySelectorAll('[data-testid=result]').length >= 6, undefined, { timeout: 30_000 });
      assert.equal(await results.count(), 6);
      const hrefs = await p.locator('main a[target=_blank]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert.deepEqual(hrefs, ['https://wiki.example.com/zebrafish/web'], 'the https url is the only source link');
      assert.equal(await p.getByRole('link', { name: 'Open in source' }).count(), 1);
      assert.ok(
        ((await p.getByRole('link', { name: 'Open in source' }).getAttribute('rel')) ?? '').split(/\s+/).includes('noopener'),
        'the source link opens with rel=noopener',
      );
      await results.filter({ hasText: 'Zebrafish note file' }).getByText('/srv/share/zebrafish handbook.md').waitFor();
    });
  });

  it('shows only its own message for ?sso_error=, whatever text the link carries', async () => {
    await withPage(async (p) => {
      // A crafted link: the text must not appear on the console's origin.
      const crafted = 'Your account is locked. Call +1-555-0100 and read out your API key';
      await p.goto(`${base}/?sso_error=${encodeURIComponent(crafted)}`);
      const alert = p.getByRole('alert').filter({ hasText: 'Single sign-on failed' });
      await alert.waitFor();
      assert.equal((await alert.textContent())?.trim(), 'Single sign-on failed.');
      assert.ok(!((await p.locator('body').textContent()) ?? '').includes('Call +1-555'), 'the parameter text is not shown');

      // A real failure: the service redirects a browser with the code, which maps to the console's own text.
      await p.goto(`${base}/v1/auth/oidc/callback?state=not-a-sign-in-this-service-started`);
      await p.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
      assert.equal(new URL(p.url()).searchParams.get('sso_error'), 'oidc_state_invalid');
      assert.match((await alert.textContent()) ?? '', /^Single sign-on failed\. This sign-in was not started here, or it has expired\./);
    });
  });

  it('offers no sync for kinds the catalogue says have nothing to sync (push connectors)', async () => {
    const pushId = await apiConnector('Pushed runbooks');
    const fs = await call<{ connector_id: string }>('POST', '/v1/connectors', {
      connector_type: 'filesystem',
      display_name: 'Server folder',
      credentials: {},
      settings: { path: folder },
    });
    assert.equal(fs.status, 201, JSON.stringify(fs.json));
    await withPage(async (p) => {
      await signIn(p, ADMIN_KEY);
      await p.goto(`${base}/connectors`);
      const pushRow = p.locator(`tr[data-connector="${pushId}"]`);
      const fsRow = p.locator(`tr[data-connector="${fs.json.connector_id}"]`);
      await fsRow.getByRole('button', { name: 'Sync now' }).waitFor();
      await fsRow.getByRole('button', { name: 'Full sync' }).waitFor();
      assert.equal(await pushRow.getByRole('button', { name: 'Sync now' }).count(), 0, 'a push connector offers no sync');
      assert.equal(await pushRow.getByRole('button', { name: 'Full sync' }).count(), 0);
      await pushRow.getByText('Nothing to sync').waitFor();

      await p.goto(`${base}/connectors/${encodeURIComponent(pushId)}`);
      await p.getByRole('heading', { name: 'Pushed runbooks' }).waitFor();
      await p.getByRole('button', { name: 'Pause' }).waitFor();
      assert.equal(await p.getByRole('button', { name: /Sync now/ }).count(), 0);
      assert.equal(await p.getByRole('button', { name: 'Full sync' }).count(), 0);
      assert.match((await p.getByTestId('no-sync').textContent()) ?? '', /nothing to sync/);

      await p.goto(`${base}/connectors/${encodeURIComponent(fs.json.connector_id)}`);
      await p.getByRole('button', { name: 'Sync now (incremental)' }).waitFor();
      assert.equal(await p.getByTestId('no-sync').count(), 0);
    });
  });

  it('signs out with a message when its API key is revoked elsewhere', async () => {
    const k = await newKey('revoked-elsewhere', ['query', 'connector:read']);
    await withPage(async (p) => {
      await signIn(p, k.key);
      await p.getByRole('link', { name: 'Connectors' }).click();
      await p.getByRole('heading', { name: 'Connectors' }).waitFor();
      assert.equal((await call('DELETE', `/v1/api-keys/${k.id}`)).status, 200);
      await p.getByRole('link', { name: 'Search' }).click();
      await p.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
      assert.match((await p.getByTestId('signed-out-notice').textContent()) ?? '', /API key or session is no longer valid/);
      assert.equal(await p.getByRole('navigation', { name: 'Main' }).count(), 0);
      assert.equal(await p.evaluate(() => sessionStorage.getItem('atrium.apiKey')), null, 'the revoked key is forgotten');
      // Signing in again clears the notice.
      await p.getByLabel('API key', { exact: true }).fill(ADMIN_KEY);
      await p.getByRole('button', { name: 'Sign in', exact: true }).click();
      await p.getByRole('navigation', { name: 'Main' }).waitFor();
      assert.equal(await p.getByTestId('signed-out-notice').count(), 0);
    });
  });

  it('signs out with a message when its SSO session expires', async () => {
    const now = t.deps.clock.now();
    const user = await upsertUser(t.db, {
      tenantId: 'default',
      identity: { email: 'ines@example.com', name: 'Ines', groups: [] },
      role: 'member',
      provider: 'oidc',
      externalId: 'ines',
      now,
    });
    const session = await createSession(t.db, { tenantId: 'default', userId: user.id, provider: 'oidc', ttlSeconds: 3600, now });
    await withPage(async (p, ctx) => {
      await ctx.addCookies([{ name: 'atrium_session', value: session.token, url: base, httpOnly: true, secure: true, sameSite: 'Lax' }]);
      await p.goto(`${base}/connectors`);
      await p.getByRole('heading', { name: 'Connectors' }).waitFor();
      skewMs += 2 * 3600_000;
      await p.getByRole('link', { name: 'Search' }).click();
      await p.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
      assert.match((await p.getByTestId('signed-out-notice').textContent()) ?? '', /no longer valid/);
    });
  });

  it('warns before revoking the key the console is signed in with, then signs out', async () => {
    const own = await newKey('my-admin-key', ['admin']);
    const other = await newKey('someone-else', ['query']);
    await withPage(async (p) => {
      await signIn(p, own.key);
      await p.getByRole('link', { name: 'API keys' }).click();
      const ownRow = p.locator('tr[data-key-name="my-admin-key"]');
      const otherRow = p.locator('tr[data-key-name="someone-else"]');
      await otherRow.waitFor();

      // Another key: the ordinary confirmation, no warning about signing out.
      await otherRow.getByRole('button', { name: 'Revoke' }).click();
      const dialog = p.getByRole('dialog');
      await dialog.waitFor();
      assert.doesNotMatch((await dialog.textContent()) ?? '', /signed in/);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await ownRow.getByRole('button', { name: 'Revoke' }).click();
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /You are signed in to this console with this key/);
      assert.equal(await ownRow.getByText('signed in with this key').count(), 1, 'the row says which key is in use');
      assert.equal(await otherRow.getByText('signed in with this key').count(), 0);
      await dialog.getByRole('button', { name: 'Revoke my key and sign out' }).click();
      await p.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
      assert.match((await p.getByTestId('signed-out-notice').textContent()) ?? '', /You revoked the API key you were signed in with/);
      assert.equal(await p.evaluate(() => sessionStorage.getItem('atrium.apiKey')), null);
    });
    assert.equal((await call('GET', '/v1/me', undefined, own.key)).status, 401);
    assert.equal((await call('GET', '/v1/me', undefined, other.key)).status, 200, 'the other key was not revoked');
  });
});
