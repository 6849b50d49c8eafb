import { performance } from 'node:perf_hooks';
import type { EmbeddingRegistry } from '../../embeddings/provider.ts';
import { type DatabaseExecutor, migrate, openPglite } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { embedPendingChunks } from '../embed.ts';
import { createProgress } from '../progress.ts';
import { searchPassages } from '../search.ts';
import { storeDocuments } from '../store.ts';
import type { DocumentsDeps, FusionMethod, SearchMode } from '../types.ts';
import { type BeirQuery, loadBeir } from './beir.ts';
import { mean, mrrAt, ndcgAt, percentile, type Qrels, recallAt } from './metrics.ts';

export interface ModeResult {
  readonly mode: SearchMode;
  readonly fusion?: FusionMethod;
  readonly ndcg_at_10: number;
  readonly recall_at_100: number;
  readonly mrr_at_10: number;
  readonly p50_ms: number;
  readonly p95_ms: number;
}

export interface EvalResult extends ModeResult {
  readonly dataset: string;
  readonly model: string | null;
  readonly docs: number;
  readonly chunks: number;
  readonly queries: number;
  readonly ingest_seconds: number;
  readonly embed_seconds: number;
  readonly lexical: ModeResult;
  readonly vector: ModeResult | null;
  readonly fusions: readonly ModeResult[];
}

const TENANT = 'default';
const SOURCE = 'eval';

/**
 * Ingests a BEIR folder into a fresh in-memory store, embeds it with `model` (default model of the
 * registry), and scores every judged query in hybrid, lexical-only and vector-only modes.
 */
export async function runEval(opts: {
  dataset: string;
  embeddings?: EmbeddingRegistry;
  model?: string;
  log: Logger;
  quiet?: boolean;
  db?: DatabaseExecutor;
}): Promise<EvalResult> {
  const { docs, queries, qrels } = await loadBeir(opts.dataset);
  const judged = queries.filter((q) => qrels.has(q.id));
  const db = opts.db ?? (await openPglite('memory://'));
  try {
    await migrate(db, opts.log);
    await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, $2, 'api', 'eval', 'idle') ON CONFLICT DO NOTHING`, [SOURCE, TENANT]);
    const model = opts.embeddings ? (opts.model ?? opts.embeddings.defaultId) : null;
    const deps: DocumentsDeps = { db, log: opts.log, embeddings: opts.embeddings };
    const ingestStart = performance.now();
    const ingest = createProgress('ingest', { quiet: opts.quiet });
    for (let i = 0; i < docs.length; i += 500) {
      const batch = docs.slice(i, i + 500).map((d) => ({ external_id: d.id, title: d.title, content: d.text, document_type: 'page' }));
      await storeDocuments(deps, { tenantId: TENANT, connectorId: SOURCE, documents: batch });
      ingest.update(Math.min(docs.length, i + 500), docs.length);
    }
    ingest.done();
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    let embedSeconds = 0;
    if (model) {
      const t = performance.now();
      const bar = createProgress(`embed ${model}`, { quiet: opts.quiet });
      await embedPendingChunks(deps, { tenantId: TENANT, model, batchSize: 256, onProgress: (p) => bar.update(p.done, p.total) });
      bar.done();
      embedSeconds = (performance.now() - t) / 1000;
    }
    const chunks = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')).rows[0]?.n ?? 0);
    const run = (mode: SearchMode, fusion?: FusionMethod) => scoreMode(deps, judged, qrels, mode, fusion, model, opts.quiet);
    const lexical = await run('lexical');
    const vector = model ? await run('vector') : null;
    const fusions = model ? [await run('hybrid', 'convex'), await run('hybrid', 'rrf')] : [];
    const hybrid = model ? await run('hybrid') : lexical;
    return {
      dataset: opts.dataset,
      model,
      docs: docs.length,
      chunks,
      queries: judged.length,
      ingest_seconds: round(ingestSeconds),
      embed_seconds: round(embedSeconds),
      ...hybrid,
      lexical,
      vector,
      fusions,
    };
  } finally {
    if (!opts.db) await db.close();
  }
}

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

async function scoreMode(
  deps: DocumentsDeps,
  queries: readonly BeirQuery[],
  qrels: Qrels,
  mode: SearchMode,
  fusion: FusionMethod | undefined,
  model: string | null,
  quiet?: boolean,
): Promise<ModeResult> {
  const ndcg: number[] = [];
  const recall: number[] = [];
  const mrr: number[] = [];
  const lat: number[] = [];
  const bar = createProgress(`queries ${mode}${fusion ? `/${fusion}` : ''}`, { quiet });
  for (const [i, q] of queries.entries()) {
    const t = performance.now();
    const passages = await searchPassages(deps, { tenantId: TENANT, query: q.text, limit: 300, candidates: 300, mode, fusion, queryModel: model ?? undefined });
    lat.push(performance.now() - t);
    // Documents ranked by their best passage.
    const ranked: string[] = [];
    const seen = new Set<string>();
    for (const p of passages) {
      if (seen.has(p.external_id)) continue;
      seen.add(p.external_id);
      ranked.push(p.external_id);
    }
    const rels = qrels.get(q.id) ?? new Map<string, number>();
    ndcg.push(ndcgAt(ranked, rels, 10));
    recall.push(recallAt(ranked, rels, 100));
    mrr.push(mrrAt(ranked, rels, 10));
    bar.update(i + 1, queries.length);
  }
  bar.done();
  return {
    mode,
    ...(fusion ? { fusion } : {}),
    ndcg_at_10: round(mean(ndcg)),
    recall_at_100: round(mean(recall)),
    mrr_at_10: round(mean(mrr)),
    p50_ms: round(percentile(lat, 50), 2),
    p95_ms: round(percentile(lat, 95), 2),
  };
}
