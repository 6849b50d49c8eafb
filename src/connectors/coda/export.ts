import { z } from 'zod';
import { abortableSleep } from '../kit/index.ts';
import { type CodaCtx, codaJson, download } from './client.ts';

const begin = z.object({ id: z.string(), status: z.string(), href: z.string().optional() });
const status = z.object({ id: z.string(), status: z.string(), downloadLink: z.string().nullable().optional(), error: z.string().nullable().optional() });

/** Waits between status polls: short first (most exports finish within a second), then every 2 s, 30 s in all. */
const POLL_DELAYS_MS = [250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000];


export type ExportResult = { ok: true; markdown: string } | { ok: false; reason: string };

/**
 * A page's content as Markdown through Coda's asynchronous export: `POST /docs/{doc}/pages/{page}/export`
 * `{outputFormat: 'markdown'}`, then `GET …/export/{requestId}` until `complete` (then the `downloadLink`'s body) or
 * `failed`. An export still running after ~30 s is reported as not done (the page keeps its stored version).
 */
export async function exportPageMarkdown(ctx: CodaCtx, docId: string, pageId: string): Promise<ExportResult> {
  const path = `/docs/${encodeURIComponent(docId)}/pages/${encodeURIComponent(pageId)}/export`;
  const started = begin.parse(await codaJson<unknown>(ctx, path, { method: 'POST', json: { outputFormat: 'markdown' } }));
  for (const delay of [0, ...POLL_DELAYS_MS]) {
    if (delay) await abortableSleep(delay, ctx.signal);
    const s = status.parse(await codaJson<unknown>(ctx, `${path}/${encodeURIComponent(started.id)}`));
    if (s.status === 'complete' && s.downloadLink) return { ok: true, markdown: await download(ctx, s.downloadLink) };
    if (s.status === 'failed') return { ok: false, reason: `Coda could not export the page: ${s.error ?? 'export failed'}` };
  }
  return { ok: false, reason: 'the page export did not complete within 30 seconds' };
}
