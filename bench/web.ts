// Web console benchmarks: production build time, bundle size, static serving throughput (autocannon,
// loopback) and time until the signed-in console is usable in headless Chromium.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { chromium } from 'playwright-core';
import { ADMIN_KEY, createTestApp } from '../test/support/app.ts';
import { machineLine, writeBenchSection } from './report.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'web', 'dist');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;

const builds: number[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-web.mjs')], { cwd: ROOT, stdio: 'ignore' });
  if (r.status !== 0) throw new Error('vite build failed');
  builds.push(performance.now() - t0);
}

const assets = readdirSync(path.join(DIST, 'assets')).filter((f) => !/\.(gz|br)$/.test(f)).map((f) => {
  const body = readFileSync(path.join(DIST, 'assets', f));
  const br = (() => {
    try {
      return statSync(path.join(DIST, 'assets', `${f}.br`)).size;
    } catch {
      return 0;
    }
  })();
  return { f, raw: statSync(path.join(DIST, 'assets', f)).size, gz: gzipSync(body).length, br };
});
const js = assets.find((a) => a.f.endsWith('.js'));

const t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_PER_MINUTE: '100000000', ATRIUM_RATE_LIMIT_BURST: '100000000' } });
await t.app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
const load = async (url: string) => {
  const r = await autocannon({ url, connections: 10, duration: 5, headers: { 'accept-encoding': 'br, gzip' } });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
};
const index = await load(`${base}/search`);
const asset = js ? await load(`${base}/assets/${js.f}`) : null;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
const ready: number[] = [];
try {
  const ctx = await browser.newContext();
  await ctx.addInitScript((key) => sessionStorage.setItem('atrium.apiKey', key), ADMIN_KEY);
  const page = await ctx.newPage();
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await page.goto(`${base}/search`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    if (i > 0) ready.push(performance.now() - t0);
  }
} finally {
  await browser.close();
  await t.close();
}

const row = (name: string, r: { rps: number; p50: number; p99: number; errors: number } | null) =>
  r ? `| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} |` : `| ${name} | — | — | — | — |`;
await writeBenchSection(
  'web',
  `## Web console

${machineLine()}
Command: \`npm run bench -- web\`. Load average when it ran: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} (the machine is shared).

- Production build (\`npm run build:web\`: vite build + gzip/brotli copies): median ${(median(builds) / 1000).toFixed(2)} s of 3.
- Bundle: ${assets.map((a) => `${a.f.replace(/-[\w-]+\./, '.')} ${kb(a.raw)} (${kb(a.gz)} gzip, ${kb(a.br)} brotli as served)`).join(', ')}.
- Signed-in console usable in headless Chromium (navigation to \`/search\` until the main navigation renders, warm cache): median ${median(ready).toFixed(0)} ms of ${ready.length}.

Static serving, autocannon, 10 connections, 5 s, loopback, embedded storage:

| Path | req/s | p50 ms | p99 ms | errors |
|---|---|---|---|---|
${row('GET /search (index.html, SPA fallback)', index)}
${row('GET /assets/index-….js (immutable)', asset)}
`,
);
console.log(`build ${median(builds).toFixed(0)} ms, index ${index.rps.toFixed(0)} req/s, asset ${asset?.rps.toFixed(0)} req/s, ready ${median(ready).toFixed(0)} ms`);
