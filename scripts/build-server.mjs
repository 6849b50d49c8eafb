#!/usr/bin/env node
// Compiles the service and CLI (src/cli/main.ts and everything it imports from src/ and packages/) into one
// JavaScript file, dist/atrium.js, with the esbuild that tsx brings (issue 29): `bin/atrium` then starts without
// tsx transforming ~530 TypeScript modules at every start (1.3 s of the 2 s of CPU a start spent loading code).
// Dependencies stay external (node_modules). Run by `npm install` / `npm ci` (the `prepare` script) and by
// `npm run build`; dist/ is git-ignored, never committed. `node scripts/build-server.mjs --check` says whether the
// build matches the sources.
//
// bin/atrium runs the build only while it is fresh: dist/atrium.build.json lists every input file (esbuild's
// metafile, plus this script) with its size, mtime and SHA-256; a file whose mtime moved but whose content did not
// (a git checkout) still counts as the same. Anything else (an edited, moved or deleted source, no build at all)
// sends bin/atrium to the sources through tsx, as before, so a checkout with local edits always runs its edits.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const FORMAT = 1;
const ENTRY = 'src/cli/main.ts';
const OUT_FILE = 'atrium.js';
const MANIFEST_FILE = 'atrium.build.json';

/** Where the build of `root` goes: `outDir` (default dist/) inside the checkout, so the bundle finds node_modules. */
function locate({ root = ROOT, outDir = path.join(root, 'dist') } = {}) {
  return { root, out: path.join(outDir, OUT_FILE), manifest: path.join(outDir, MANIFEST_FILE) };
}

const sha256 = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/**
 * The compiled entry point (a file URL) when the build folder holds a build of exactly the sources under
 * `root`, else `{ entry: null, reason }`. Costs one stat per input (~530), and a hash only of a file whose
 * mtime moved.
 */
export function compiledBuild(where = {}) {
  const { root, out, manifest: manifestFile } = locate(where);
  const shown = (file) => path.relative(root, file);
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  } catch {
    return { entry: null, reason: `no compiled build (${shown(manifestFile)}); npm run build makes one` };
  }
  if (manifest?.format !== FORMAT || typeof manifest.inputs !== 'object' || manifest.inputs === null) {
    return { entry: null, reason: `${shown(manifestFile)} is of another format` };
  }
  const st = fs.statSync(out, { throwIfNoEntry: false });
  if (!st || st.size !== manifest.outputSize) return { entry: null, reason: `${shown(out)} is missing or was changed after the build` };
  for (const [rel, want] of Object.entries(manifest.inputs)) {
    const file = path.join(root, rel);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st) return { entry: null, reason: `${rel} is gone since the build` };
    if (st.size === want.size && st.mtimeMs === want.mtimeMs) continue;
    if (st.size !== want.size || sha256(file) !== want.sha256) return { entry: null, reason: `${rel} changed since the build` };
  }
  return { entry: pathToFileURL(out).href, reason: null };
}

/**
 * What bin/atrium runs: the compiled build when it is fresh and ATRIUM_FROM_SOURCE is not 1, else the
 * TypeScript sources (`{ entry: null, reason }`).
 */
export function startEntry(env, where = {}) {
  if (env.ATRIUM_FROM_SOURCE === '1') return { entry: null, reason: 'ATRIUM_FROM_SOURCE=1' };
  return compiledBuild(where);
}

/**
 * Code that computes paths from `import.meta.url` (migrations/, web/dist, worker files, package.json) must
 * see its own source location, not the bundle's: each module's `import.meta.url` / `import.meta.dirname`
 * becomes its source file's URL, resolved relative to the bundle, so the build works wherever the checkout is.
 */
function sourceLocationPlugin(outfile) {
  return {
    name: 'atrium-source-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8');
        if (contents.includes('import.meta.')) {
          const rel = JSON.stringify(path.relative(path.dirname(outfile), args.path).split(path.sep).join('/'));
          contents = contents
            .replaceAll('import.meta.url', `new URL(${rel}, import.meta.url).href`)
            .replaceAll('import.meta.dirname', `__atriumSourceDir(${rel})`);
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Builds atrium.js and its manifest; resolves with the number of inputs and the time taken. */
export async function buildServer(where = {}) {
  const { root, out: outfile, manifest: manifestFile } = locate(where);
  const started = performance.now();
  // esbuild is tsx's dependency (tsx is a runtime dependency), so a production install has it too.
  const requireFromTsx = createRequire(createRequire(SELF).resolve('tsx/package.json'));
  const esbuild = await import(pathToFileURL(requireFromTsx.resolve('esbuild')).href);
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const tmp = `${outfile}.${process.pid}.tmp`;
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(root, ENTRY)],
    outfile: tmp,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    metafile: true,
    logLevel: 'warning',
    // Readable output with each module under a `// src/...` comment; the map is for `node --enable-source-maps`.
    sourcemap: 'linked',
    define: { ATRIUM_COMPILED: 'true' },
    banner: {
      js: [
        "import { fileURLToPath as __atriumFileURLToPath } from 'node:url';",
        "import { dirname as __atriumDirname } from 'node:path';",
        'const __atriumSourceDir = (rel) => __atriumDirname(__atriumFileURLToPath(new URL(rel, import.meta.url)));',
      ].join('\n'),
    },
    plugins: [sourceLocationPlugin(outfile)],
  });
  const inputs = {};
  // The metafile names inputs relative to absWorkingDir (root); this script is an input too.
  for (const rel of [...Object.keys(result.metafile.inputs), path.relative(root, SELF)].sort()) {
    const file = path.join(root, rel);
    const st = fs.statSync(file);
    inputs[rel] = { size: st.size, mtimeMs: st.mtimeMs, sha256: sha256(file) };
  }
  // The map names the temporary file: point it at the final one, then move both into place, the manifest last
  // (a build interrupted before that is simply not fresh).
  const map = fs.readFileSync(`${tmp}.map`, 'utf8').replace(`"file":"${path.basename(tmp)}"`, `"file":"${path.basename(outfile)}"`);
  const code = fs.readFileSync(tmp, 'utf8').replace(`//# sourceMappingURL=${path.basename(tmp)}.map`, `//# sourceMappingURL=${path.basename(outfile)}.map`);
  fs.rmSync(manifestFile, { force: true });
  fs.writeFileSync(`${outfile}.map`, map);
  fs.writeFileSync(outfile, code);
  fs.rmSync(tmp, { force: true });
  fs.rmSync(`${tmp}.map`, { force: true });
  const manifest = { format: FORMAT, builtAt: new Date().toISOString(), esbuild: esbuild.version, outputSize: Buffer.byteLength(code), inputs };
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 1)}\n`);
  return { inputs: Object.keys(inputs).length, ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  if (process.argv.includes('--check')) {
    const b = compiledBuild();
    console.log(b.entry ? `fresh: bin/atrium runs ${path.relative(ROOT, fileURLToPath(b.entry))}` : `not fresh: ${b.reason}; bin/atrium runs the sources through tsx`);
  } else {
    // Like the console build, a failure must not fail `npm install`: bin/atrium then runs the sources through tsx.
    try {
      const r = await buildServer();
      console.log(`[atrium] server compiled in ${(r.ms / 1000).toFixed(1)} s (dist/${OUT_FILE}, ${r.inputs} inputs)`);
    } catch (err) {
      console.warn(`[atrium] could not compile the server (${err instanceof Error ? err.message : String(err)}); bin/atrium runs the sources through tsx`);
      if (process.env.ATRIUM_STRICT_BUILD === '1') process.exit(1);
    }
  }
}
