import { VERSION } from '../platform/version.ts';

export interface BannerInfo {
  /** Where this process answers, as a browser on this machine reaches it. */
  readonly url: string;
  readonly role: 'all' | 'api' | 'worker';
  readonly storage: 'pglite' | 'postgres';
  /** The embedded data folder, absolute (PGlite only). */
  readonly dataDir?: string;
  /** A first-run setup code, while the instance has no API key. */
  readonly setup?: { readonly code: string; readonly expiresAt: Date } | null;
}

/**
 * The lines `atrium serve` prints on stderr once it listens, in plain text whatever the log format: where the
 * console and the API reference are, where the data lives, and — on an instance without keys — the one-time link
 * that creates the first admin key (in the URL's fragment, which browsers never send to a server or a proxy log).
 */
export function startBanner(info: BannerInfo): string {
  const base = info.url.replace(/\/$/, '');
  const lines = [`Atrium ${VERSION} is running (${info.role === 'all' ? 'API and worker' : info.role === 'api' ? 'API only' : 'worker only'})`];
  if (info.role !== 'worker') {
    lines.push(`  Console:   ${base}/`, `  API docs:  ${base}/docs/api`, `  MCP:       ${base}/v1/expose/mcp`);
  }
  lines.push(info.storage === 'pglite' ? `  Data:      ${info.dataDir} (embedded PostgreSQL: PGlite)` : '  Data:      PostgreSQL (DATABASE_URL)');
  if (info.setup) {
    const minutes = Math.round((info.setup.expiresAt.getTime() - Date.now()) / 60_000);
    lines.push(
      '',
      '  No API key exists yet. Create the first admin key in the console (this link works once, for',
      `  ${minutes} minutes; each start makes a new one until a key exists):`,
      `    ${base}/setup#code=${info.setup.code}`,
      `  or: curl -X POST ${base}/v1/setup -H 'content-type: application/json' -d '{"code":"${info.setup.code}"}'`,
    );
  }
  return `\n${lines.join('\n')}\n\n`;
}
