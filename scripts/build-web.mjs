#!/usr/bin/env node
// Builds the web console (web/ → web/dist) during `npm install` / `npm ci` (the root `prepare` script),
// so `npm install && npm start` serves it. A failed build must not fail the install: the service
// still starts and its `/` explains how to build the console (`npm run build:web`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));

let viteBin;
try {
  viteBin = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
} catch {
  console.warn('[atrium] vite is not installed: the web console was not built (run npm install, then npm run build:web)');
  process.exit(0);
}

const started = Date.now();
const res = spawnSync(process.execPath, [viteBin, 'build', 'web', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
if (res.status === 0 && existsSync(path.join(root, 'web', 'dist', 'index.html'))) {
  // Pre-compressed copies: the server sends .br / .gz to browsers that accept them (a third of the bytes).
  const assets = path.join(root, 'web', 'dist', 'assets');
  for (const name of readdirSync(assets).filter((f) => /\.(js|css|svg)$/.test(f))) {
    const body = readFileSync(path.join(assets, name));
    writeFileSync(path.join(assets, `${name}.gz`), gzipSync(body, { level: 9 }));
    writeFileSync(path.join(assets, `${name}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
  console.log(`[atrium] web console built in ${((Date.now() - started) / 1000).toFixed(1)} s (web/dist)`);
} else {
  console.warn('[atrium] the web console build FAILED; the API still works. Fix the error above and run: npm run build:web');
  if (process.env.ATRIUM_STRICT_WEB_BUILD === '1') process.exit(1);
}
