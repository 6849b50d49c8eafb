// End-to-end in Debian's Chromium (playwright-core): an MCP client's consent page (API-key path, the tenant has no SSO)
// approved in a real browser, then the console's MCP page shows the connector URL and the grant, and revokes it.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createApiKey } from '../../src/access/index.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve('test-artifacts/web');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : false;

describe('console: MCP sign-in for remote clients', { timeout: 180_000, skip: noBrowser }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let callback: http.Server;
  let redirectUri: string;
  const received: URL[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // The MCP client's loopback redirect listener.
    callback = http.createServer((req, res) => {
      received.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>done</title><p>You can close this window.</p>');
    });
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((r) => callback?.close(r));
  });

  it('approves a client on the consent page, then lists and revokes the grant on the MCP page', async () => {
    // Ada's own key (it reads as her); the public URL of this test service is http://127.0.0.1:8080, the resource names it.
    const ada = await createApiKey(t.db, { tenantId: 'default', name: 'ada laptop', permissions: ['query', 'connector:read'], identityEmail: 'ada@example.com' });
    const reg = await fetch(`${base}/v1/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Claude', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    const client = (await reg.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL('/v1/oauth/authorize', base);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'e2e-state',
    }).toString();

    await page.goto(url.toString());
    await page.getByRole('heading', { name: 'Connect Claude to Atrium' }).waitFor();
    assert.equal(await page.locator('#redirect-uri').textContent(), redirectUri);
    await page.getByLabel('API key').fill(ada.key);
    await page.getByRole('button', { name: 'Continue with this key' }).click();
    await page.waitForLoadState();
    await page.getByRole('heading', { name: 'Allow Claude to use Atrium as you?' }).waitFor();
    assert.match((await page.locator('#granted').textContent()) ?? '', /query: search and read/);
    assert.match((await page.locator('main, body').first().textContent()) ?? '', /ada@example\.com: the documents this person may read/);
    await page.screenshot({ path: path.join(SHOTS, 'mcp-oauth-consent.png'), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.toString().startsWith(redirectUri));
    const back = received.find((u) => u.pathname === '/callback')!;
    assert.equal(back.searchParams.get('state'), 'e2e-state');
    const code = back.searchParams.get('code')!;
    const token = await fetch(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id }),
    });
    assert.equal(token.status, 200);
    const { access_token } = (await token.json()) as { access_token: string };
    const tools = () => fetch(`${base}/v1/expose/mcp/tools`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal((await tools()).status, 200);

    // The console: the MCP page shows the URL to paste into a custom connector and the grant, with a Revoke button.
    await page.goto(`${base}/`);
    await page.getByLabel('API key', { exact: true }).fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByRole('link', { name: 'MCP', exact: true }).click();
    await page.getByRole('heading', { name: /Sign in from Claude, ChatGPT/ }).waitFor();
    const origin = new URL(page.url()).origin;
    assert.equal(await page.getByTestId('oauth-connector-url').textContent(), `${origin}/v1/expose/mcp`);
    const row = page.locator(`tr[data-grant]`, { hasText: 'Claude' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /ada@example\.com.*via API key.*connector:read, query/);
    await page.screenshot({ path: path.join(SHOTS, 'mcp-oauth-grants.png'), fullPage: true });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByText('No application is connected.').waitFor();
    assert.equal((await tools()).status, 401, 'revoked in the console: the token stops working');
  });
});
