// Issue 26 in Chromium against the real service on a random port: the empty-state guide of a fresh instance, uploads
// of exports, the status page, the training loss chart, and the console polish (plain labels, source names, folded
// duplicates, Markdown, chart axes, translation confidence). Screenshots are checked (text visible, not blank).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import JSZip from 'jszip';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { axeProblems, checkedShot, launch, noBrowser, signIn } from './browser.ts';
import { apiCaller } from './http.ts';

const SLACK_EXPORT = path.resolve(import.meta.dirname, '../../../shared/data/slack-export/testarchive.zip');

let t: TestApp;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;
const call = apiCaller(() => base);
const a11y: string[] = [];

async function shot(name: string, expect: readonly (string | RegExp)[]): Promise<void> {
  await checkedShot(page, name, expect);
  for (const f of await axeProblems(page)) a11y.push(`${name}: ${f}`);
}

describe('console: first hour of a new user (issue 26)', { timeout: 600_000, skip: noBrowser }, () => {
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_JOB_POLL_MS: '50' } });
    t.runtime.worker.start();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-console-'));
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('a fresh instance shows how to get documents in, with the exact CLI command', async () => {
    await signIn(page, base, ADMIN_KEY);
    await page.getByRole('link', { name: 'Search' }).click();
    const guide = page.getByTestId('empty-guide');
    await guide.waitFor();
    assert.equal(await guide.locator('pre code').textContent(), './bin/atrium login\n./bin/atrium ingest slack-export.zip --source uploads');
    await shot('empty-state', ['Nothing to search yet', 'Connect a source', 'Upload files', 'Ingest from a terminal', './bin/atrium ingest ./handbook']);
    await guide.getByRole('link', { name: 'Upload' }).click();
    await page.getByRole('heading', { name: 'Upload files' }).waitFor();
  });

  it('uploads the Slack export zip into a new source and shows what was added', async () => {
    await page.getByLabel('Add to').selectOption({ label: 'A new upload source…' });
    await page.getByLabel('New source name').fill('Team Slack');
    await page.getByLabel('File', { exact: true }).setInputFiles(SLACK_EXPORT);
    assert.equal(await page.getByLabel('What the file is').inputValue(), 'zip', 'the format is read from the name');
    await page.getByRole('button', { name: 'Upload and add' }).click();
    const result = page.getByTestId('import-result');
    await result.waitFor({ timeout: 120_000 });
    const text = (await result.textContent()) ?? '';
    assert.match(text, /Added to “Team Slack”/);
    assert.match(text, /Read as a Slack export: (\d+) documents/);
    const n = Number(/: (\d+) documents/.exec(text)?.[1]);
    assert.ok(n > 0);
    await shot('upload', ['Added to “Team Slack”', 'Slack export', /\d+ channels, \d+ users/]);
    const list = await call<{ connectors: { connector_id: string; display_name: string; connector_type: string; document_count: number }[] }>('GET', '/v1/connectors');
    const slack = list.json.connectors.find((c) => c.display_name === 'Team Slack');
    assert.equal(slack?.connector_type, 'api');
    assert.equal(slack?.document_count, n);
    // The destination list shows the new count.
    await page.getByLabel('Add to').locator('option', { hasText: `Team Slack (${n} documents)` }).waitFor({ state: 'attached' });
  });

  it('maps CSV columns in the form, lists skipped files of an archive, and refuses a broken zip', async () => {
    const csv = path.join(dir, 'tickets.csv');
    await fs.writeFile(csv, 'ticket,subject,body,opened\nT-1,Printer jams,The third floor printer jams on glossy paper,2026-03-04\nT-2,VPN drops,VPN drops every hour,2026-03-05\n');
    await page.getByLabel('File', { exact: true }).setInputFiles(csv);
    const mapping = page.getByTestId('column-mapping');
    await mapping.waitFor();
    await page.getByLabel('Identifier column').selectOption('ticket');
    await page.getByLabel('Title column').selectOption('subject');
    await page.getByLabel('Last-updated column').selectOption('opened');
    await mapping.getByLabel('body').check();
    await shot('upload-csv-mapping', ['Columns (4 found on the first line)', 'Identifier column']);
    await page.getByRole('button', { name: 'Upload and add' }).click();
    await page.getByTestId('import-result').getByText(/Read as a CSV file: 2 documents — 2 new/).waitFor();
    const found = await call<{ passages: { external_id: string; title: string; content: string }[] }>('POST', '/v1/search', { query: 'glossy printer', mode: 'lexical' });
    const hit = found.json.passages.find((p) => p.external_id === 'T-1');
    assert.equal(hit?.title, 'Printer jams');
    assert.equal(hit?.content, 'The third floor printer jams on glossy paper');

    const zip = new JSZip();
    zip.file('Export/Roadmap 0123456789abcdef0123456789abcdef.md', '# Roadmap 2027\n\nShip the **vec2vec** bridge in March.');
    zip.file('Export/diagram.png', new Uint8Array([137, 80, 78, 71]));
    await fs.writeFile(path.join(dir, 'notion.zip'), await zip.generateAsync({ type: 'nodebuffer' }));
    await page.getByLabel('File', { exact: true }).setInputFiles(path.join(dir, 'notion.zip'));
    await page.getByRole('button', { name: 'Upload and add' }).click();
    const skipped = page.getByTestId('import-result').getByTestId('skipped-files');
    await skipped.waitFor();
    assert.match((await skipped.textContent()) ?? '', /1 file skipped.*Export\/diagram\.png: no parser for this file type/);

    await fs.writeFile(path.join(dir, 'broken.zip'), 'this is not a zip file');
    await page.getByLabel('File', { exact: true }).setInputFiles(path.join(dir, 'broken.zip'));
    await page.getByRole('button', { name: 'Upload and add' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /broken\.zip: not a readable zip archive/);
  });

  it('shows the status page: storage, queue, workers, last syncs, model load times', async () => {
    await page.getByRole('link', { name: 'Status' }).click();
    await page.getByTestId('status-storage').waitFor();
    assert.match((await page.getByTestId('status-storage').textContent()) ?? '', /Built-in database/);
    assert.match((await page.getByTestId('status-queue').textContent()) ?? '', /\d+ waiting, \d+ running/);
    assert.match((await page.getByTestId('status-workers').textContent()) ?? '', /This process runs background work/);
    // GloVe embedded the uploads on the request path: its load time is known.
    await page.getByTestId('status-models').getByText(/\d+\.\d\d s/).first().waitFor();
    await shot('status', ['Service and storage', 'Background work', 'Last syncs', 'Embedding models', 'builtin/glove-100d']);
  });

  it('folds identical passages of two sources into one result with "also in", names sources, plain labels', async () => {
    const ids: string[] = [];
    for (const name of ['Wiki', 'Helpdesk']) {
      const c = await call<{ connector_id: string }>('POST', '/v1/connectors', { connector_type: 'api', display_name: name, credentials: {}, settings: {} });
      ids.push(c.json.connector_id);
      const doc = {
        external_id: 'vpn',
        title: 'VPN setup',
        content: '## Connecting to the VPN\n\n1. Install the **WireGuard** client.\n2. Import the profile from [the portal](https://portal.example.com).\n\n<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>',
        document_type: 'page',
      };
      assert.equal((await call('POST', `/v1/connectors/${c.json.connector_id}/documents`, { documents: [doc] })).status, 200);
    }
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Search query').fill('wireguard vpn profile');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByTestId('result').filter({ hasText: 'VPN setup' });
    await results.first().waitFor({ timeout: 30_000 });
    assert.equal(await results.count(), 1, 'the same passage from two sources is one result');
    const also = (await results.getByTestId('also-in').textContent()) ?? '';
    assert.match(also, /^also in: (Wiki|Helpdesk)$/);
    assert.doesNotMatch(await results.textContent() ?? '', /api-[a-z0-9]{6,}/, 'source names, not connector ids');
    assert.doesNotMatch((await page.getByTestId('search-stats').textContent()) ?? '', /entropy|damping/, 'no internal terms on the page');
    assert.match((await page.getByTestId('damping').locator('[title]').getAttribute('title')) ?? '', /homeostasis damping/);
    await shot('search-folded', ['also in:', 'VPN setup', 'Results:']);

    // The document page renders the Markdown; HTML in it stays text and never runs.
    await results.getByRole('link', { name: /VPN setup/ }).click();
    const md = page.getByTestId('markdown');
    await md.waitFor();
    await md.getByRole('heading', { name: 'Connecting to the VPN' }).waitFor();
    assert.equal(await md.locator('strong', { hasText: 'WireGuard' }).count(), 1);
    assert.equal(await md.locator('ol > li').count(), 2);
    assert.equal(await md.getByRole('link', { name: 'the portal' }).getAttribute('href'), 'https://portal.example.com');
    assert.equal(await md.locator('script, img').count(), 0, 'no raw HTML element is rendered');
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.match((await page.locator('dl.kv').textContent()) ?? '', /Source(Wiki|Helpdesk)/);
    await shot('document-markdown', ['Connecting to the VPN', 'WireGuard']);
  });

  it('shows shipped translations with their band meaning and retrieval number, not alarm colours', async () => {
    await page.getByRole('link', { name: 'Translations' }).click();
    const shipped = page.locator('tr[data-builtin="true"]');
    await shipped.first().waitFor();
    for (const row of await shipped.all()) {
      const cell = row.getByTestId('confidence');
      const text = (await cell.textContent()) ?? '';
      assert.match(text, /Fit 0\.\d\d/);
      assert.match(text, /Finds the right text first \d+ % of the time among [\d,]+/);
      const percent = Number(/first (\d+) %/.exec(text)?.[1]);
      if (percent >= 50) {
        assert.notEqual(await cell.getAttribute('data-tone'), 'bad', `${text}: retrieval is fine, no alarm`);
        assert.doesNotMatch(text, /retrain/);
      }
      assert.match((await cell.locator('[title]').first().getAttribute('title')) ?? '', /band “\w+”: the map removes/);
    }
  });

  it('charts the training loss per epoch with axes and units', async () => {
    const models = (await call<{ models: { id: string }[] }>('GET', '/v1/embeddings/models')).json.models.map((m) => m.id);
    const target = models.includes('builtin/use-distilled-512d') ? 'builtin/use-distilled-512d' : models.find((m) => m !== 'builtin/glove-100d');
    assert.ok(target, `a second model: ${models.join(', ')}`);
    const topics = ['invoice', 'database', 'holiday', 'security', 'release', 'budget', 'hiring', 'outage', 'design', 'customer', 'printer', 'office'];
    const verbs = ['review', 'approve', 'discuss', 'schedule', 'update', 'close', 'cancel', 'share'];
    const texts = topics.flatMap((topic) => verbs.map((verb) => `Please ${verb} the ${topic} plan with the team this week`));
    await page.getByLabel('Source model').fill('builtin/glove-100d');
    await page.getByLabel('Target model').fill(target);
    await page.getByLabel(/^Parallel texts \(/).fill(texts.join('\n'));
    await page.getByLabel('Minimum samples').fill('20');
    await page.getByLabel('Epochs').fill('6');
    await page.getByLabel('Neural map (unchecked: linear)').check();
    await page.getByRole('button', { name: 'Start training' }).click();
    await page.getByText(/Done\. Confidence/).waitFor({ timeout: 240_000 });
    const chart = page.getByTestId('loss-chart');
    await chart.waitFor();
    const svg = chart.locator('svg[role=img]');
    assert.match((await svg.getAttribute('aria-label')) ?? '', /Training loss per epoch: \d+ points, Epoch 1 to \d/);
    const titles = await chart.locator('text.axis-title').allTextContents();
    assert.deepEqual(titles, ['Epoch', 'Loss (mean squared error)']);
    assert.ok((await chart.locator('circle').count()) >= 1);
    assert.ok((await chart.locator('text.tick').count()) >= 4, 'both axes have tick labels');
    const job = await page.locator('.job h3 code').textContent();
    const status = await call<{ epoch_losses: { epoch: number; loss: number }[] }>('GET', `/v1/vec2vec/training/${job}`);
    assert.equal(await chart.locator('circle').count(), status.json.epoch_losses.length, 'one point per recorded epoch');
    await shot('training-loss', ['Training loss per epoch', 'Epoch']);
  });

  it('has no serious accessibility problems on the new pages (axe-core, WCAG 2.1 AA)', () => {
    assert.deepEqual(a11y, []);
  });
});
