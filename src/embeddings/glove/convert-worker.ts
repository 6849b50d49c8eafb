// Worker-thread body: converts the GloVe JSON off the main thread so the API stays responsive.
import { parentPort, workerData } from 'node:worker_threads';
import { convertWinkGlove } from './convert.ts';

const { jsonPath, outPath } = workerData as { jsonPath: string; outPath: string };
try {
  parentPort?.postMessage({ ok: true, ...(await convertWinkGlove(jsonPath, outPath)) });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
}
