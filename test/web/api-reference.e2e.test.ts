// The OpenAPI document names every operation (stable ids client generators use) and /docs/api renders it in
// Chromium from the service's own files, with no request leaving the machine.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { operationIdFor, tagFor } from '../../src/http/operation-ids.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM}` : false;

describe('operation ids', () => {
  it('are the method and the path words, singular before an id', () => {
    assert.equal(operationIdFor('GET', '/v1/connectors'), 'getConnectors');
    assert.equal(operationIdFor('GET', '/v1/connectors/:id'), 'getConnector');
    assert.equal(operationIdFor('POST', '/v1/connectors/:id/sync'), 'postConnectorSync');
    assert.equal(operationIdFor('GET', '/v1/connectors/:connector_type/oauth-url'), 'getConnectorOauthUrl');
    assert.equal(operationIdFor('PUT', '/v1/identity/accounts/:account_id'), 'putIdentityAccount');
    assert.equal(operationIdFor('GET', '/v1/ai-usage/policies'), 'getAiUsagePolicies');
    assert.equal(tagFor('/v1/api-keys/:id'), 'api-keys');
  });
});

describe('the OpenAPI document and the API reference at /docs/api', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser | undefined;
  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.app.server.address() as { port: number };
    base = `http://127.0.0.1:${addr.port}`;
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  it('gives every operation a unique operationId and a tag', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>> };
    const seen = new Map<string, string>();
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${p}`;
        assert.ok(op.operationId, `${where} has no operationId`);
        assert.ok(op.tags?.length, `${where} has no tag`);
        assert.equal(seen.get(op.operationId), undefined, `${op.operationId} names ${where} and ${seen.get(op.operationId)}`);
        seen.set(op.operationId, where);
      }
    }
    assert.ok(seen.size > 50, `${seen.size} operations`);
    assert.equal(seen.get('getConnectors'), 'GET /v1/connectors');
    assert.equal(seen.get('postSearch'), 'POST /v1/search');
  });

  it('serves the reference without a key, with a CSP that allows only this origin', async () => {
    const page = await fetch(`${base}/docs/api/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.doesNotMatch(page.headers.get('content-security-policy') ?? '', /https:|validator/);
    assert.equal((await fetch(`${base}/docs/api/json`)).status, 200);
  });

  it('renders the operations in Chromium from local files only', { skip: noBrowser }, async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    const ctx = await browser.newContext();
    const foreign: string[] = [];
    ctx.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    const p = await ctx.newPage();
    p.setDefaultTimeout(20_000);
    await p.goto(`${base}/docs/api/`);
    await p.locator('.opblock-tag', { hasText: 'connectors' }).first().waitFor();
    await p.getByText('Atrium API', { exact: false }).first().waitFor();
    // Operation ids are displayed with each operation.
    assert.ok((await p.locator('.opblock-summary-operation-id', { hasText: 'getConnectors' }).count()) >= 1);
    assert.deepEqual(foreign, [], 'no request left the machine');
    await ctx.close();
  });
});
