import { InvalidArgumentError } from 'commander';
import { DataDirLockedError } from '../platform/db/index.ts';
import { buildProgram } from './program.ts';
import { CliRefusal } from './storage.ts';

// The composition root for the CLI: the only place (with src/main) that reads process.env.
const program = buildProgram(process.env);
program.exitOverride();
try {
  await program.parseAsync(process.argv);
} catch (err) {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (err instanceof InvalidArgumentError) {
    // Thrown by a command's action (commander prints only the errors of its own parsing).
    process.stderr.write(`atrium: ${e.message}\n`);
    process.exitCode = 2;
  } else if (err instanceof CliRefusal) {
    process.stderr.write(`atrium: ${err.message}\n`);
    process.exitCode = err.exitCode;
  } else if (err instanceof DataDirLockedError) {
    // Another process took the folder between our check and our open, or a second `serve`.
    process.stderr.write(`atrium: ${err.message}\n`);
    process.exitCode = 3;
  } else if (e.code?.startsWith('commander.')) {
    process.exitCode = e.exitCode ?? 2;
  } else {
    process.stderr.write(`atrium: ${e.message ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
