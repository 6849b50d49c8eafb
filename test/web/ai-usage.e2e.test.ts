// The console's AI-usage page in Chromium (issue 21): real SVG charts with axes and units over seeded usage, the
// findings with their first-seen days, filters kept in the URL, the CSV download with the credential, the empty
// guide, and a key without ai_usage:read kept out.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { aiUsageSynced, upsertUsage } from '../../src/ai-usage/index.ts';
import type { UsageRecord } from '../../src/connectors/kit/index.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { apiCaller } from './http.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : false;

const T = 'default';
const DAY = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const dayAgo = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * DAY).toISOString().slice(0, 10);
/** 20 days of history (20 ago … 1 ago, the baseline), then today: a new user and key with a spend spike. */
const HISTORY = Array.from({ length: 20 }, (_, i) => dayAgo(20 - i));

interface Use {
  user: string;
  key: string;
  model: string;
  tokens: number;
  cost: number;
}

function buckets(provider: string, day: string, uses: Use[], wobble: number): UsageRecord[] {
  return uses.map((u) => ({
    record_id: `${provider}:${day}:${u.user}:${u.key}:${u.model}`,
    kind: 'usage' as const,
    day,
    workspace: 'org_1',
    project: 'proj_growth',
    user: u.user,
    api_key: u.key,
    model: u.model,
    requests: 10,
    input_tokens: u.tokens + wobble * 10,
    output_tokens: Math.round(u.tokens / 5),
    cost_usd: u.cost + wobble * 0.1,
  }));
}

const OPENAI: Use[] = [
  { user: 'ada@acme.test', key: 'key_a', model: 'gpt-4.1', tokens: 9000, cost: 6 },
  { user: 'ada@acme.test', key: 'key_a', model: 'o3', tokens: 3000, cost: 3 },
  { user: 'ben@acme.test', key: 'key_b', model: 'gpt-4.1-mini', tokens: 7000, cost: 1 },
  { user: 'ben@acme.test', key: 'key_b', model: 'gpt-4o', tokens: 2500, cost: 1 },
];
const ANTHROPIC: Use[] = [
  { user: 'cy@acme.test', key: 'apikey_01', model: 'claude-sonnet-4', tokens: 8000, cost: 2 },
  { user: 'cy@acme.test', key: 'apikey_01', model: 'claude-opus-4', tokens: 1500, cost: 2.5 },
  { user: 'cy@acme.test', key: 'apikey_01', model: 'claude-haiku-3', tokens: 1000, cost: 0.2 },
];
const SPIKE: Use = { user: 'dan@acme.test', key: 'key_new', model: 'gpt-4.1', tokens: 400_000, cost: 250 };

let t: TestApp;
let base: string;
let browser: Browser;
const call = apiCaller(() => base);

async function newKey(name: string, permissions: string[], tenant = T): Promise<string> {
  const res = await call<{ key: string }>('POST', '/v1/api-keys', { name, permissions });
  if (tenant === T) {
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return res.json.key;
  }
  return (await t.keyWith(permissions as never, tenant)).authorization.replace(/^Bearer /, '');
}

async function withPage(fn: (p: Page) => Promise<void>): Promise<void> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  try {
    const p = await ctx.newPage();
    p.setDefaultTimeout(15_000);
    await fn(p);
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

/** Waits for the page's charts to show the view the URL asks for (the previous view's charts are kept while loading). */
async function settled(p: Page): Promise<void> {
  await p.waitForFunction(() => {
    const view = document.querySelector('[data-view]');
    return !!view && view.getAttribute('aria-busy') === 'false';
  });
  await p.waitForFunction(() => document.querySelector('table[data-testid=findings]')?.closest('[aria-busy]')?.getAttribute('aria-busy') !== 'true');
}

const seriesOf = (p: Page, chart: string) => p.getByTestId(chart).locator('svg g[data-series]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-series')));
const barsOf = (p: Page, chart: string) => p.getByTestId(chart).locator('svg g[data-bar]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-bar')));

describe('the AI-usage page in Chromium', { timeout: 180_000, skip: noBrowser }, () => {
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('oa', $1, 'openai', 'OpenAI'), ('an', $1, 'anthropic', 'Anthropic')`, [T]);
    const history = (provider: string, uses: Use[]) => HISTORY.flatMap((d, i) => buckets(provider, d, uses, i % 3));
    await upsertUsage(t.db, { tenantId: T, connectorId: 'oa', provider: 'openai', records: history('openai', OPENAI) });
    await upsertUsage(t.db, { tenantId: T, connectorId: 'an', provider: 'anthropic', records: history('anthropic', ANTHROPIC) });
    // The first completed syncs: the baseline.
    await aiUsageSynced(t.db, { tenantId: T, connectorId: 'oa' });
    await aiUsageSynced(t.db, { tenantId: T, connectorId: 'an' });
    // Today: the usual, plus a new person with a new key spending a lot.
    await upsertUsage(t.db, { tenantId: T, connectorId: 'oa', provider: 'openai', records: buckets('openai', today, [...OPENAI, SPIKE], 0) });
    await upsertUsage(t.db, { tenantId: T, connectorId: 'an', provider: 'anthropic', records: buckets('anthropic', today, ANTHROPIC, 0) });
    await aiUsageSynced(t.db, { tenantId: T, connectorId: 'oa' });
    await aiUsageSynced(t.db, { tenantId: T, connectorId: 'an' });
    // An allow-list without claude-opus-4.
    const policy = await call('PUT', '/v1/ai-usage/policy', { allowed_models: ['gpt-4*', 'o3', 'claude-sonnet-4*', 'claude-haiku-3'] });
    assert.equal(policy.status, 200, JSON.stringify(policy.json));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('draws spend, tokens, top users and keys as SVG charts with axes and units, and lists the findings with first-seen days', async () => {
    const findings = (await call<{ findings: { rule: string; subject: string; first_seen: string }[] }>('GET', '/v1/ai-usage/findings')).json.findings;
    const rules = new Set(findings.map((f) => `${f.rule} ${f.subject}`));
    for (const want of ['new_api_key key_new', 'new_user dan@acme.test', 'unsanctioned_model claude-opus-4', `spend_spike ${today}`]) assert.ok(rules.has(want), `${want} in ${[...rules]}`);

    await withPage(async (p) => {
      await signIn(p, ADMIN_KEY);
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI usage' }).click();
      await p.getByRole('heading', { name: 'AI usage', level: 1 }).waitFor();
      await settled(p);

      // Spend per day by provider: one stacked series per provider, dollars on the y axis, days on the x axis.
      const spend = p.getByTestId('chart-spend');
      assert.deepEqual(await seriesOf(p, 'chart-spend'), ['openai', 'anthropic']);
      const spendImg = spend.getByRole('img');
      assert.match((await spendImg.getAttribute('aria-label')) ?? '', /^Spend per day by provider, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d: \$\d+\.\d\d in all; openai \$[\d.]+, anthropic \$[\d.]+\.$/);
      const spendText = await spend.locator('svg text').allTextContents();
      assert.ok(spendText.includes('Spend (USD)'), 'y axis title');
      assert.ok(spendText.some((s) => s.startsWith('Day (UTC)')), 'x axis title');
      assert.ok(spendText.some((s) => /^\$\d/.test(s) && s !== '$0'), `dollar ticks: ${spendText}`);
      assert.ok(spendText.some((s) => /^[A-Z][a-z]{2} \d{1,2}$/.test(s)), 'date ticks');
      // 21 days of openai bars and of anthropic bars (the rest of the 30 days are empty).
      assert.equal(await spend.locator('g[data-series=openai] rect').count(), 21);
      assert.equal(await spend.locator('g[data-series=anthropic] rect').count(), 21);
      assert.deepEqual(await spend.locator('.legend li').allTextContents().then((l) => l.map((s) => s.split(' ')[0])), ['openai', 'anthropic']);
      // A table alternative.
      await spend.getByText('Show the numbers as a table').click();
      assert.equal(await spend.locator('details table tbody tr').count(), 21);

      // Tokens per day: the 5 largest of 7 models and "other".
      const tokenSeries = await seriesOf(p, 'chart-tokens');
      assert.equal(tokenSeries.length, 6, String(tokenSeries));
      assert.equal(tokenSeries[5], 'other');
      assert.equal(tokenSeries[0], 'gpt-4.1', 'the spike makes gpt-4.1 the largest');
      const tokenText = await p.getByTestId('chart-tokens').locator('svg text').allTextContents();
      assert.ok(tokenText.includes('Tokens (input + output)'), 'y axis title');
      assert.ok(tokenText.some((s) => /^\d+(\.\d)?[kM]$/.test(s)), `token ticks: ${tokenText}`);

      // Top users and keys by spend.
      assert.deepEqual(await barsOf(p, 'chart-users'), ['dan@acme.test', 'ada@acme.test', 'cy@acme.test', 'ben@acme.test']);
      assert.deepEqual(await barsOf(p, 'chart-keys'), ['key_new', 'key_a', 'apikey_01', 'key_b']);
      assert.ok((await p.getByTestId('chart-users').locator('svg text').allTextContents()).includes('Spend (USD)'));
      assert.match((await p.getByTestId('chart-keys').getByRole('img').getAttribute('aria-label')) ?? '', /^Top API keys by spend: key_new \$250\.00, key_a \$/);

      // Findings: plain language, the rule's name on hover, first-seen days.
      const table = p.getByTestId('findings');
      assert.equal(await table.locator('tbody tr').count(), findings.length);
      const newKey = table.locator('tbody tr[data-rule=new_api_key]');
      assert.equal(await newKey.locator('.rule').textContent(), 'New API key');
      assert.equal(await newKey.locator('.rule').getAttribute('title'), 'rule: new_api_key');
      assert.equal(await newKey.locator('td').nth(2).textContent(), 'key_new');
      assert.equal(await newKey.locator('td').nth(3).textContent(), today);
      const opus = table.locator('tbody tr[data-rule=unsanctioned_model]');
      assert.equal(await opus.locator('.rule').textContent(), 'Model not on the allow-list');
      assert.equal(await opus.locator('td').nth(3).textContent(), HISTORY[0], 'first seen on the first day it was used');
      assert.match((await table.locator('tbody tr[data-rule=spend_spike]').first().textContent()) ?? '', /against a 14-day median of \$/);

      mkdirSync('test-artifacts', { recursive: true });
      await p.screenshot({ path: 'test-artifacts/ai-usage.png', fullPage: true });
      await p.setViewportSize({ width: 390, height: 844 });
      await p.screenshot({ path: 'test-artifacts/ai-usage-narrow.png', fullPage: true });
    });
  });

  it('keeps filters in the URL: provider, rule and days change the data, and a shared link opens the same view', async () => {
    await withPage(async (p) => {
      await signIn(p, ADMIN_KEY);
      await p.goto(`${base}/ai-usage`);
      await settled(p);
      await p.getByLabel('Provider', { exact: true }).selectOption('anthropic');
      await p.waitForURL(/provider=anthropic/);
      await settled(p);
      assert.deepEqual(await seriesOf(p, 'chart-spend'), ['anthropic']);
      assert.deepEqual((await seriesOf(p, 'chart-tokens')).sort(), ['claude-haiku-3', 'claude-opus-4', 'claude-sonnet-4']);
      assert.deepEqual(await barsOf(p, 'chart-users'), ['cy@acme.test']);
      const providers = await p.getByTestId('findings').locator('tbody tr td:nth-child(2)').allTextContents();
      assert.ok(providers.length > 0 && providers.every((x) => x === 'anthropic'), String(providers));

      await p.getByLabel('Rule', { exact: true }).selectOption('unsanctioned_model');
      await p.waitForURL(/rule=unsanctioned_model/);
      await p.waitForFunction(() => Array.from(document.querySelectorAll('table[data-testid=findings] tbody tr')).every((r) => r.getAttribute('data-rule') === 'unsanctioned_model'));
      assert.equal(await p.getByTestId('findings').locator('tbody tr').count(), 1);

      // The link, opened fresh, shows the same view.
      const shared = p.url();
      await p.goto(shared);
      await settled(p);
      assert.equal(await p.getByLabel('Provider', { exact: true }).inputValue(), 'anthropic');
      assert.equal(await p.getByLabel('Rule', { exact: true }).inputValue(), 'unsanctioned_model');
      assert.deepEqual(await seriesOf(p, 'chart-spend'), ['anthropic']);

      // Only today: the new user is there, with the default range's other days gone.
      await p.goto(`${base}/ai-usage?from=${today}&to=${today}&provider=openai`);
      await settled(p);
      assert.equal(await p.getByLabel('From', { exact: true }).inputValue(), today);
      assert.deepEqual(await barsOf(p, 'chart-users'), ['dan@acme.test', 'ada@acme.test', 'ben@acme.test']);
      assert.equal(await p.getByTestId('chart-spend').locator('g[data-series=openai] rect').count(), 1);
      await p.getByLabel('User', { exact: true }).selectOption('ada@acme.test');
      await p.waitForURL(/user=ada%40acme\.test/);
      await settled(p);
      assert.deepEqual(await barsOf(p, 'chart-keys'), ['key_a']);
    });
  });

  it('downloads the filtered view as CSV with the credential', async () => {
    await withPage(async (p) => {
      await signIn(p, ADMIN_KEY);
      await p.goto(`${base}/ai-usage?provider=anthropic`);
      await settled(p);
      const [download] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: 'Download CSV' }).click()]);
      assert.match(download.suggestedFilename(), /^ai-usage-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/);
      const file = await download.path();
      const lines = readFileSync(file, 'utf8').trimEnd().split('\r\n');
      assert.equal(lines[0], 'day,provider,model,user,api_key,requests,input_tokens,output_tokens,cost_usd');
      assert.equal(lines.length - 1, 21 * ANTHROPIC.length);
      assert.ok(lines.slice(1).every((l) => l.split(',')[1] === 'anthropic'), lines.slice(0, 4).join('\n'));
    });
  });

  it('hides the page from a key without ai_usage:read and says why; a key with only ai_usage:read sees it', async () => {
    const querier = await newKey('no ai usage', ['query', 'connector:read']);
    const reader = await newKey('ai usage reader', ['ai_usage:read']);
    await withPage(async (p) => {
      await signIn(p, querier);
      assert.equal(await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI usage' }).count(), 0);
      await p.goto(`${base}/ai-usage`);
      const notice = p.getByRole('status').filter({ hasText: 'ai_usage:read' });
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', /needs the ai_usage:read permission/);
      assert.equal(await p.locator('svg[role=img]').count(), 0);
    });
    await withPage(async (p) => {
      await signIn(p, reader);
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI usage' }).click();
      await settled(p);
      assert.deepEqual(await seriesOf(p, 'chart-spend'), ['openai', 'anthropic']);
    });
  });

  it('shows a short guide when the tenant has no AI usage yet', async () => {
    const admin = await newKey('empty admin', ['admin'], 'empty-co');
    await withPage(async (p) => {
      await signIn(p, admin);
      await p.goto(`${base}/ai-usage`);
      const guide = p.getByRole('region', { name: 'No AI usage yet' });
      await guide.waitFor();
      const text = (await guide.textContent()) ?? '';
      assert.match(text, /admin key/);
      assert.match(text, /OpenAI/);
      assert.match(text, /Anthropic/);
      assert.equal(await guide.getByRole('link', { name: 'Connectors' }).getAttribute('href'), '/connectors');
      assert.equal(await p.getByRole('button', { name: 'Download CSV' }).count(), 0);
      await p.screenshot({ path: 'test-artifacts/ai-usage-empty.png', fullPage: true });

      // A connector set up but not synced yet: the guide names it.
      await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('oa-empty', 'empty-co', 'openai', 'OpenAI (empty co)')`);
      await p.reload();
      await guide.waitFor();
      assert.match((await guide.textContent()) ?? '', /An AI-provider connector is set up \(OpenAI \(empty co\) \(\w+\)\) but no usage has been read yet/);
      assert.equal(await guide.getByRole('link', { name: 'OpenAI (empty co)' }).getAttribute('href'), '/connectors/oa-empty');
    });
  });
});
