// Shared by the issue-26 console tests: Chromium launch, sign-in, and screenshots that the test checks (the page's
// expected text visible, the picture decoded and not blank) and, with ATRIUM_UPDATE_SCREENSHOTS=1, refreshes in
// docs/screenshots/.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve('test-artifacts/web');
const DOC_SHOTS = process.env.ATRIUM_UPDATE_SCREENSHOTS === '1' ? path.resolve('docs/screenshots') : null;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Without a browser (a laptop without Chromium) the suite is skipped, saying why; CI installs Chromium and must run it. */
export const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : false;

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

export async function signIn(p: Page, base: string, key: string): Promise<void> {
  await p.goto(`${base}/`);
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Serious or critical WCAG 2.1 A/AA problems axe-core finds on the page (the context needs bypassCSP to inject it). */
export async function axeProblems(p: Page): Promise<string[]> {
  if ((await p.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe)) === 'undefined') await p.addScriptTag({ path: AXE });
  return p.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

/**
 * Screenshot of `main` after checking that each of `expect` is visible in it; then the PNG is decoded by Chromium in a
 * blank page and must be a real picture (at least 400 × 200 and many colours, not a blank or single-colour page).
 * Copied to docs/screenshots/console-<name>.png with ATRIUM_UPDATE_SCREENSHOTS=1.
 */
export async function checkedShot(p: Page, name: string, expect: readonly (string | RegExp)[]): Promise<void> {
  const main = p.locator('main');
  for (const e of expect) await main.getByText(e).first().waitFor({ state: 'visible' });
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await p.evaluate(() => document.querySelector<HTMLElement>('.topbar')?.style.setProperty('position', 'static'));
  try {
    await main.screenshot({ path: file });
  } finally {
    await p.evaluate(() => document.querySelector<HTMLElement>('.topbar')?.style.setProperty('position', ''));
  }
  const png = readFileSync(file);
  const decoder = await p.context().newPage();
  try {
    const info = await decoder.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d');
      if (!g) return { width: 0, height: 0, colours: 0 };
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const colours = new Set<number>();
      for (let i = 0; i < d.length; i += 4 * 7) colours.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
      return { width: img.width, height: img.height, colours: colours.size };
    }, png.toString('base64'));
    assert.ok(info.width >= 400 && info.height >= 200, `${name}.png is ${info.width}×${info.height}`);
    assert.ok(info.colours >= 16, `${name}.png looks blank (${info.colours} colours)`);
  } finally {
    await decoder.close();
  }
  if (DOC_SHOTS) {
    mkdirSync(DOC_SHOTS, { recursive: true });
    copyFileSync(file, path.join(DOC_SHOTS, `console-${name}.png`));
  }
}
