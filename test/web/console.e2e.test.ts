// End-to-end: Debian's Chromium (playwright-core) drives the built console against the real service
// listening on a random port. Screenshots of every page go to test-artifacts/web/.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createSession } from '../../src/auth/sessions.ts';
import { upsertUser } from '../../src/auth/users.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { apiCaller } from './http.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve('test-artifacts/web');
// ATRIUM_UPDATE_SCREENSHOTS=1 also refreshes the two README screenshots in docs/screenshots/.
const DOC_SHOTS = process.env.ATRIUM_UPDATE_SCREENSHOTS === '1' ? path.resolve('docs/screenshots') : null;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

let t: TestApp;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let paths: Set<string>;

const call = apiCaller(() => base);

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** Accessibility problems (axe-core, WCAG 2 A/AA, serious or critical) per page, checked by the last test. */
const a11y: string[] = [];

/** Full-page and element screenshots scroll; a sticky header would be painted mid-page. */
async function withStaticHeader(p: Page, fn: () => Promise<unknown>): Promise<void> {
  const set = (v: string) => p.evaluate((pos) => document.querySelector<HTMLElement>('.topbar')?.style.setProperty('position', pos), v);
  await set('static');
  try {
    await fn();
  } finally {
    await set('');
  }
}

async function shot(p: Page, name: string): Promise<void> {
  await withStaticHeader(p, () => p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }));
  if ((await p.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe)) === 'undefined') await p.addScriptTag({ path: AXE });
  const found = await p.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
  for (const f of found) a11y.push(`${name}: ${f}`);
}

async function docShot(p: Page, name: string, what: 'viewport' | 'main'): Promise<void> {
  if (!DOC_SHOTS) return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  const file = path.join(DOC_SHOTS, `${name}.png`);
  if (what === 'main') await withStaticHeader(p, () => p.locator('main').screenshot({ path: file }));
  else await p.screenshot({ path: file });
}

/** Skips (with the reason) when the capability's route is not served by this build. */
function requireRoutes(ctx: TestContext, ...needed: string[]): boolean {
  const missing = needed.filter((p) => !paths.has(p));
  if (missing.length) ctx.skip(`route(s) not served yet: ${missing.join(', ')}`);
  return missing.length === 0;
}

async function signIn(p: Page, key: string): Promise<void> {
  await p.goto(`${base}/`);
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.getByRole('navigation', { name: 'Main' }).waitFor();
}

// Without a browser (a laptop without Chromium) the suite is skipped, saying why; CI installs Chromium and must run it.
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : false;

describe('web console in Chromium', { timeout: 300_000, skip: noBrowser }, () => {
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp({ env: { ATRIUM_JOB_POLL_MS: '50' } });
    t.runtime.worker.start();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    paths = new Set(Object.keys(doc.paths));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    // bypassCSP only lets the test inject axe-core; the console itself runs under its CSP in every other test.
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the API message for a wrong key, then signs in with a key', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
    await shot(page, 'sign-in');
    await page.getByLabel('API key', { exact: true }).fill('atr_not_a_real_key_0000000000000000');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /missing or invalid API key/);
    await page.getByLabel('API key', { exact: true }).fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'API keys' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('atrium.apiKey')), ADMIN_KEY);
    // The skip link is the first stop for keyboard users.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  });

  it('creates an API key, shows the plaintext once, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name', { exact: true }).fill('e2e-reader');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = ((await page.getByTestId('new-key').textContent()) ?? '').trim();
    assert.match(key, /^atr_/);
    assert.equal((await call('GET', '/v1/me', undefined, key)).status, 200);
    const row = page.locator('tr[data-key-name="e2e-reader"]');
    await row.waitFor();
    await shot(page, 'api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('new-key').count(), 0, 'the plaintext is gone once dismissed');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('revoked').waitFor();
    assert.equal((await call('GET', '/v1/me', undefined, key)).status, 401);
  });

  it('filters the audit log by action prefix and pages through it', async () => {
    for (let i = 0; i < 55; i++) await call('POST', '/v1/api-keys', { name: `bulk-${i}`, permissions: ['query'] });
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel('Action prefix').fill('apikey');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('Page 1: 50 events').waitFor();
    assert.ok((await page.locator('td code', { hasText: 'apikey.created' }).count()) >= 1);
    await shot(page, 'audit');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(/Page 2: \d+ events?/).waitFor();
    // Newest first: the revocation happened before the 55 creations.
    await page.locator('td code', { hasText: 'apikey.revoked' }).first().waitFor();
    const second = await page.locator('tbody tr').count();
    assert.ok(second >= 7 && second <= 50, `second page has ${second} rows`);
    await page.getByLabel('Action prefix').fill('connector');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText(/Page 1: \d+ events?/).waitFor();
    assert.equal(await page.locator('td code', { hasText: 'apikey.' }).count(), 0);
  });

  it('shows a missing permission as the API message, never a blank page', async () => {
    const reader = await t.keyWith(['query']);
    const ctx2 = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p2 = await ctx2.newPage();
      await signIn(p2, reader.authorization.slice('Bearer '.length));
      assert.equal(await p2.getByRole('link', { name: 'API keys' }).count(), 0, 'admin pages are not offered');
      await p2.goto(`${base}/keys`);
      const alert = p2.getByRole('alert').first();
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', /lacks the 'admin' permission/);
    } finally {
      await ctx2.close();
    }
  });

  it('recognises an SSO session cookie: the role decides the pages, sign out ends the session', async (ctx) => {
    if (!requireRoutes(ctx, '/v1/auth/logout')) return;
    // What the SAML/OIDC callback does after a successful sign-in (the flows themselves are the SSO tests' job).
    const now = new Date();
    const user = await upsertUser(t.db, {
      tenantId: 'default',
      identity: { email: 'maria@example.com', name: 'Maria', groups: ['engineering'] },
      role: 'member',
      provider: 'oidc',
      externalId: 'maria',
      now,
    });
    const session = await createSession(t.db, { tenantId: 'default', userId: user.id, provider: 'oidc', ttlSeconds: 3600, now });
    /** A page of a new browser context that holds the session's cookie, at `pathName`. */
    const withSession = async <T>(pathName: string, use: (p: Page) => Promise<T>): Promise<T> => {
      const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        await c.addCookies([{ name: 'atrium_session', value: session.token, url: base, httpOnly: true, secure: true, sameSite: 'Lax' }]);
        const p = await c.newPage();
        await p.goto(`${base}${pathName}`);
        return await use(p);
      } finally {
        await c.close();
      }
    };
    await withSession('/connectors', async (p2) => {
      await p2.getByRole('heading', { name: 'Connectors' }).waitFor();
      assert.equal(await p2.getByRole('link', { name: 'API keys' }).count(), 0, 'a member is no admin');
      assert.equal(await p2.getByRole('link', { name: 'Search' }).count(), 1);
      await p2.getByRole('button', { name: 'Sign out' }).click();
      await p2.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
    });
    const after = await fetch(`${base}/v1/me`, { headers: { cookie: `atrium_session=${session.token}` } });
    assert.equal(after.status, 401, 'the session was revoked');
    // Opening the console with a cookie of a session that has ended says so on the sign-in page.
    await withSession('/search', async (p3) => {
      await p3.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
      await p3.getByText('Your sign-in session has expired or was ended. Sign in again.').waitFor();
    });
  });

  it('creates a connector from the catalogue form, pauses, resumes and deletes it', async (ctx) => {
    if (!requireRoutes(ctx, '/v1/connectors/catalog', '/v1/connectors/{id}/pause')) return;
    await page.getByRole('link', { name: 'Connectors' }).click();
    const kind = page.getByLabel('Kind');
    await kind.waitFor();
    const github = await kind.locator('option', { hasText: 'GitHub' }).count();
    if (github) {
      // The form is generated from the kind's settings JSON Schema.
      await kind.selectOption({ label: 'GitHub (code_hosting)' });
      await page.getByLabel('Max file size mb').waitFor();
      assert.equal(await page.getByLabel('Max file size mb').inputValue(), '10');
      assert.equal(await page.getByLabel('Sync private repos').isChecked(), true);
      // Bounds from the schema become the browser's own constraint validation.
      await page.getByLabel('Max file size mb').fill('0');
      await page.getByRole('button', { name: 'Create connector' }).click();
      assert.equal(await page.getByLabel('Max file size mb').evaluate((el) => (el as HTMLInputElement).validity.rangeUnderflow), true);
      await page.getByLabel('Max file size mb').fill('10');
      await shot(page, 'connector-form');
    }
    await kind.selectOption('api');
    await page.getByLabel('Display name').fill('Runbooks (push)');
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByText(/Connector api-\S+ created/).waitFor();
    const row = page.locator('tr', { hasText: 'Runbooks (push)' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByText('paused').waitFor();
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.getByRole('button', { name: 'Pause' }).waitFor();
    await shot(page, 'connectors');
    await row.getByRole('link', { name: 'Runbooks (push)' }).click();
    await page.getByRole('heading', { name: 'Runbooks (push)' }).waitFor();
    await page.getByText('No sync has run yet.').waitFor();
    // A push connector has nothing to sync (the catalogue says so): no sync buttons that could only fail with 409.
    await page.getByTestId('no-sync').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sync now (incremental)' }).count(), 0);
    await shot(page, 'connector-detail');
    await page.getByRole('link', { name: '← All connectors' }).click();
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete connector' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('pushes documents and finds them in search with highlights and badges', async (ctx) => {
    if (!requireRoutes(ctx, '/v1/federate', '/v1/connectors/{connector_id}/documents', '/v1/forget', '/v1/documents/{id}')) return;
    const created = await call<{ connector_id: string }>('POST', '/v1/connectors', { connector_type: 'api', display_name: 'Incident notes', credentials: {}, settings: {} });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.connector_id;
    const now = Date.now();
    const day = 86_400_000;
    const pushed = await call('POST', `/v1/connectors/${id}/documents`, {
      documents: [
        {
          external_id: 'inc-1',
          title: 'Database outage postmortem',
          content: 'Severity 1 incident: the primary database outage lasted 40 minutes. Failover to the replica was manual. Action items: automate failover.',
          author: 'dana@example.com',
          document_type: 'incident',
          updated_at: new Date(now - day).toISOString(),
          url: 'https://wiki.example.com/inc-1',
        },
        {
          external_id: 'run-2',
          title: 'Database failover runbook',
          content: 'How to fail over the database: promote the replica, repoint the connection string, verify writes.',
          author: 'lee@example.com',
          document_type: 'page',
          updated_at: new Date(now - 60 * day).toISOString(),
        },
        {
          external_id: 'old-3',
          title: 'Old database notes',
          content: 'Notes about the legacy database cluster and its failover scripts, kept for reference.',
          author: 'sam@example.com',
          document_type: 'page',
          updated_at: new Date(now - 3 * day).toISOString(),
        },
      ],
    });
    assert.equal(pushed.status, 200, JSON.stringify(pushed.json));
    const forgot = await call('POST', '/v1/forget', { connector_id: id, external_ids: ['old-3'], reason: 'e2e' });
    assert.ok(forgot.status === 201 || forgot.status === 200, JSON.stringify(forgot.json));

    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Search query').fill('database outage failover');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByTestId('result');
    await results.first().waitFor({ timeout: 30_000 });
    assert.ok((await results.count()) >= 2);
    assert.ok((await page.locator('[data-testid=result] mark').count()) >= 2, 'matched terms are highlighted');
    const incident = results.filter({ hasText: 'Database outage postmortem' });
    await incident.getByText('critical', { exact: true }).waitFor();
    await incident.getByText('recent', { exact: true }).waitFor();
    await results.filter({ hasText: 'Old database notes' }).getByText('forgotten (tombstone)').waitFor();
    await page.getByTestId('damping').waitFor();
    // Plain words on the page, the technical term (entropy) on hover.
    assert.match((await page.getByTestId('entropy').textContent()) ?? '', /^Results: \w/);
    assert.match((await page.getByTestId('entropy').getAttribute('title')) ?? '', /user entropy \d/);
    await docShot(page, 'console-search', 'viewport');
    await incident.getByText('Why this result?').click();
    await shot(page, 'search');

    await incident.getByRole('link', { name: /Database outage postmortem/ }).click();
    await page.getByRole('heading', { name: 'Database outage postmortem' }).waitFor();
    await page.getByText('Failover to the replica was manual').waitFor();
    assert.equal(await page.getByRole('link', { name: /Open in the source tool/ }).getAttribute('href'), 'https://wiki.example.com/inc-1');
    await shot(page, 'document');

    // Phone width: the same results stay readable.
    await page.goBack();
    await page.setViewportSize({ width: 390, height: 844 });
    await results.first().waitFor();
    await shot(page, 'search-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling at phone width (overflow ${overflow}px)`);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('trains a translation and follows the progress bar to 100 %', async (ctx) => {
    if (!requireRoutes(ctx, '/v1/vec2vec/train', '/v1/vec2vec/training/{job_id}', '/v1/embeddings/models')) return;
    const models = (await call<{ models: { id: string; dimensions: number }[] }>('GET', '/v1/embeddings/models')).json.models.map((m) => m.id);
    const pick = ['builtin/glove-100d', ...models.filter((m) => m !== 'builtin/glove-100d')].filter((m) => models.includes(m));
    if (pick.length < 2) {
      ctx.skip(`needs two embedding models, this server has ${models.join(', ') || 'none'}`);
      return;
    }
    const [source, target] = pick as [string, string];
    const topics = ['invoice', 'database', 'holiday', 'security', 'release', 'budget', 'hiring', 'outage', 'design', 'customer'];
    const verbs = ['review', 'approve', 'discuss', 'schedule', 'update', 'close'];
    const texts = topics.flatMap((topic) => verbs.map((verb) => `Please ${verb} the ${topic} plan with the team this week`));
    await page.getByRole('link', { name: 'Translations' }).click();
    await page.getByLabel('Source model').fill(source);
    await page.getByLabel('Target model').fill(target);
    await page.getByLabel(/^Parallel texts \(/).fill(texts.join('\n'));
    await page.getByLabel('Minimum samples').fill('20');
    await page.getByRole('button', { name: 'Start training' }).click();
    const bar = page.getByRole('progressbar', { name: 'Training progress' });
    await bar.waitFor();
    await page.waitForFunction(() => document.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow') === '100', undefined, { timeout: 180_000 });
    await page.getByText(/Done\. Confidence/).waitFor();
    await page.locator('tr[data-builtin="false"]', { hasText: source }).first().waitFor();
    await shot(page, 'translations');
    await docShot(page, 'console-translations', 'main');
    // Shipped translations cannot be deleted; the trained ones can.
    for (const shipped of await page.locator('tr[data-builtin="true"]').all()) assert.equal(await shipped.getByRole('button', { name: 'Delete' }).count(), 0);
    const rows = page.locator('tr[data-builtin="false"]');
    const before = await rows.count();
    assert.ok(before >= 2, 'both directions were trained');
    const first = rows.first();
    const id = await first.getAttribute('data-translation');
    await first.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete translation' }).click();
    await page.locator(`tr[data-translation="${id}"]`).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), before - 1);
  });

  it('changes single sign-on settings: SAML provider, group mapping, debug mode, test run', async (ctx) => {
    if (!requireRoutes(ctx, '/v1/auth/sso/saml', '/v1/auth/sso/config', '/v1/auth/sso/group-mapping', '/v1/auth/sso/test')) return;
    const cert = execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=idp.e2e.test', '-days', '30'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await page.getByRole('link', { name: 'Single sign-on' }).click();
    await page.getByRole('tab', { name: 'SAML 2.0' }).waitFor();
    // Arrow keys move between the protocol tabs.
    await page.getByRole('tab', { name: 'SAML 2.0' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.getByLabel('Issuer URL').waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.getByLabel('IdP entity ID').fill('https://idp.e2e.test/metadata');
    await page.getByLabel('IdP SSO URL').fill('https://idp.e2e.test/sso');
    await page.getByLabel('IdP certificate (PEM)').fill(cert);
    await page.getByLabel('Groups attribute').fill('memberOf');
    await page.getByRole('button', { name: 'Save SAML configuration' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByTestId('sso-status').getByText('enabled', { exact: true }).waitFor();

    await page.getByLabel('Group 1', { exact: true }).fill('engineering');
    await page.getByLabel('Role for group 1').selectOption('member');
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByText('Mapping saved.').waitFor();

    await page.getByLabel(/Debug mode/).check();
    await page.waitForFunction(async () => {
      const r = await fetch('/v1/auth/sso/config', { headers: { authorization: `Bearer ${sessionStorage.getItem('atrium.apiKey')}` } });
      return (await r.json()).debug_mode === true;
    });

    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByText(/Full report/).waitFor();
    await shot(page, 'sso');

    const config = await call<{ active_provider: string; group_mapping: Record<string, string>; debug_mode: boolean; saml: { attribute_mapping: { groups?: string } } }>('GET', '/v1/auth/sso/config');
    assert.equal(config.json.active_provider, 'saml');
    assert.deepEqual(config.json.group_mapping, { engineering: 'member' });
    assert.equal(config.json.debug_mode, true);
    assert.equal(config.json.saml.attribute_mapping.groups, 'memberOf');
  });

  it('shows MCP endpoints and ready-to-paste client configurations', async () => {
    await page.getByRole('link', { name: 'MCP' }).click();
    // Shown twice: the Streamable HTTP endpoint, and the connector URL for OAuth sign-in (test/web/mcp-oauth.e2e.test.ts).
    await page.getByText(`${base}/v1/expose/mcp`, { exact: true }).first().waitFor();
    assert.ok((await page.locator('pre code', { hasText: '"mcpServers"' }).count()) >= 2);
    if (paths.has('/v1/expose/mcp/tools')) await page.locator('ul.tools code', { hasText: 'query_knowledge' }).waitFor();
    await shot(page, 'mcp');
  });

  it('has no serious accessibility problems on any page (axe-core, WCAG 2.1 AA)', () => {
    assert.deepEqual(a11y, []);
  });

  it('signs out and forgets the key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Atrium' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('atrium.apiKey')), null);
    if (paths.has('/v1/auth/sso/saml')) {
      // SAML was configured above: the sign-in page offers the tenant's SSO login.
      const sso = page.getByRole('link', { name: /^Sign in with / });
      await sso.waitFor();
      assert.equal(await sso.getAttribute('href'), '/v1/auth/sso/login?tenant_id=default');
    }
  });
});
