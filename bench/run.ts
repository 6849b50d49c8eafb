// `npm run bench [-- name ...]`: runs bench/<name>.ts for each name (default: every bench file),
// each in its own process, in order. Each writes its own section of docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'report.ts', 'federate-load.ts'].includes(f) && !f.endsWith('.test.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
// Options (`--docs 20000`) go to every bench named; the other arguments name benches.
const args = process.argv.slice(2);
const options = args.flatMap((a, i) => (a.startsWith('--') ? [a, ...(args[i + 1] && !args[i + 1]?.startsWith('--') ? [args[i + 1] as string] : [])] : []));
const picked = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const names = picked.length ? picked : all;
let failed = 0;
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`no benchmark '${name}' (have: ${all.join(', ')})`);
    failed++;
    continue;
  }
  console.error(`== bench ${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`), ...options], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
