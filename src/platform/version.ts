import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const VERSION: string = pkg.version;

// Defined (true) by scripts/build-server.mjs in the compiled build; absent when tsx runs the sources.
declare const ATRIUM_COMPILED: boolean | undefined;
/** Whether this process runs the compiled build (dist/atrium.js) or the TypeScript sources. */
export const CODE_FORM: 'compiled' | 'source' = typeof ATRIUM_COMPILED !== 'undefined' && ATRIUM_COMPILED ? 'compiled' : 'source';
