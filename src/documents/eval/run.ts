import { performance } from 'node:perf_hooks';
import type { EmbeddingRegistry } from '../../embeddings/provider.ts';
import { type DatabaseExecutor, migrate, openPglite } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { embedPendingChunks } from '../embed.ts';
import { DEFAULT_FEEDBACK, type VectorFeedback } from '../feedback.ts';
import type { Candidate } from '../fusion.ts';
import { createProgress } from '../progress.ts';
import { ALL_DOCUMENTS } from '../acl.ts';
import { DEFAULT_ALPHA, DEFAULT_FUSION, defaultDepths, type RankedCandidate, type RetrievedCandidates, rankCandidates, retrieveCandidates } from '../search/index.ts';
import { storeDocuments } from '../store.ts';
import type { DocumentsDeps, FusionMethod, SearchMode } from '../types.ts';
import { type BeirQuery, loadBeir } from './beir.ts';
import { mean, mrrAt, ndcgAt, percentile, type Qrels, recallAt } from './metrics.ts';

export interface ModeResult {
  readonly mode: SearchMode;
  readonly fusion?: FusionMethod;
  readonly alpha?: number;
  /** Vector pseudo-relevance feedback applied before fusion (feedback.ts); absent = none. */
  readonly feedback?: VectorFeedback;
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
  /**
   * The default ranking from the candidate depths `search` uses when asked for 10 passages (lexical
   * 4 × limit, at least 100; vector HYBRID_VECTOR_DEPTH) instead of the eval's 300 per list, so the
   * cost of the shallower lists is visible. Documents ranked by their best candidate. Null without a model.
   */
  readonly default_depth: {
    readonly lexical: number;
    readonly vector: number;
    readonly ndcg_at_10: number;
    readonly mrr_at_10: number;
    /** Latency of that hybrid retrieval and ranking (what `search` pays for 10 results). */
    readonly p50_ms: number;
    readonly p95_ms: number;
  } | null;
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
    const ids = await db.query<{ id: string; external_id: string }>('SELECT id, external_id FROM documents WHERE tenant_id = $1', [TENANT]);
    const externalIds = new Map(ids.rows.map((r) => [r.id, r.external_id]));
    const scored = await scoreQueries(deps, judged, qrels, model, externalIds, opts.quiet);
    const isDefault = (v: ModeResult) =>
      v.fusion === DEFAULT_FUSION && (v.alpha ?? DEFAULT_ALPHA) === DEFAULT_ALPHA && sameFeedback(v.feedback, DEFAULT_FEEDBACK);
    const hybrid = model ? (scored.variants.find(isDefault) ?? scored.lexical) : scored.lexical;
    const lexical = scored.lexical;
    const vector = scored.vector;
    const fusions = scored.variants;
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
      default_depth: scored.defaultDepth,
    };
  } finally {
    if (!opts.db) await db.close();
  }
}

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

interface Acc {
  readonly ndcg: number[];
  readonly recall: number[];
  readonly mrr: number[];
}

const ALPHAS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/** Feedback settings ranked at the default α, so the default's choice is visible on every data set. */
const FEEDBACKS: readonly VectorFeedback[] = [3, 5, 10].flatMap((docs) => [0.5, 1, 2].map((beta) => ({ docs, beta })));

const sameFeedback = (a: VectorFeedback | false | undefined, b: VectorFeedback | false | undefined) =>
  (a || undefined)?.docs === (b || undefined)?.docs && (a || undefined)?.beta === (b || undefined)?.beta;

/** Documents (their external ids, as the qrels name them) ranked by their best passage. */
function docRanking(passages: readonly RankedCandidate[], externalIds: ReadonlyMap<string, string>): string[] {
  const ranked: string[] = [];
  const seen = new Set<string>();
  for (const p of passages) {
    const id = externalIds.get(p.document_id) ?? p.document_id;
    if (seen.has(id)) continue;
    seen.add(id);
    ranked.push(id);
  }
  return ranked;
}

type Variant = {
  key: string;
  mode: SearchMode;
  fusion?: FusionMethod;
  alpha?: number;
  feedback?: VectorFeedback;
  rank: (r: RetrievedCandidates) => RankedCandidate[];
};

/** Every ranking the eval scores from one retrieval: lexical, vector (with a model), and the fusion variants. */
function evalVariants(model: string | null, limit: number): Variant[] {
  const only = (keep: (c: Candidate) => boolean, score: (c: Candidate) => number) => (r: RetrievedCandidates): RankedCandidate[] => {
    const ids = new Set(r.candidates.filter(keep).map((c) => c.id));
    const sub = { ...r, candidates: r.candidates.filter((c) => ids.has(c.id)).map((c) => ({ ...c, lexical: score(c), semantic: null, vecRank: null, lexRank: 1 })) };
    return rankCandidates(sub, { fusion: 'convex', alpha: 0, feedback: false, limit });
  };
  const variants: Variant[] = [{ key: 'lexical', mode: 'lexical', rank: only((c) => c.lexRank !== null, (c) => c.lexical ?? 0) }];
  if (model) {
    variants.push({ key: 'vector', mode: 'vector', rank: only((c) => c.vecRank !== null, (c) => 1 + (c.semantic ?? -1)) });
    variants.push({ key: 'rrf', mode: 'hybrid', fusion: 'rrf', rank: (r) => rankCandidates(r, { fusion: 'rrf', feedback: false, limit }) });
    variants.push({ key: 'rrf+prf', mode: 'hybrid', fusion: 'rrf', feedback: DEFAULT_FEEDBACK, rank: (r) => rankCandidates(r, { fusion: 'rrf', feedback: DEFAULT_FEEDBACK, limit }) });
    for (const alpha of ALPHAS) {
      variants.push({ key: `convex-${alpha}`, mode: 'hybrid', fusion: 'convex', alpha, rank: (r) => rankCandidates(r, { fusion: 'convex', alpha, feedback: false, limit }) });
      variants.push({
        key: `convex-${alpha}+prf`,
        mode: 'hybrid',
        fusion: 'convex',
        alpha,
        feedback: DEFAULT_FEEDBACK,
        rank: (r) => rankCandidates(r, { fusion: 'convex', alpha, feedback: DEFAULT_FEEDBACK, limit }),
      });
    }
    for (const fb of FEEDBACKS) {
      if (sameFeedback(fb, DEFAULT_FEEDBACK)) continue;
      const opts = { fusion: 'convex' as const, alpha: DEFAULT_ALPHA, feedback: fb };
      variants.push({ key: `convex-${DEFAULT_ALPHA}+prf-${fb.docs}-${fb.beta}`, mode: 'hybrid', ...opts, rank: (r) => rankCandidates(r, { ...opts, limit }) });
    }
  }
  return variants;
}

/**
 * One hybrid retrieval per query; the lexical list, the vector list and every fusion variant are
 * ranked from the same candidates, so the comparison is exact and the eval runs once.
 */
async function scoreQueries(
  deps: DocumentsDeps,
  queries: readonly BeirQuery[],
  qrels: Qrels,
  model: string | null,
  externalIds: ReadonlyMap<string, string>,
  quiet?: boolean,
): Promise<{ lexical: ModeResult; vector: ModeResult | null; variants: ModeResult[]; defaultDepth: EvalResult['default_depth'] }> {
  const limit = 300;
  const variants = evalVariants(model, limit);
  const acc = new Map<string, Acc>(variants.map((v) => [v.key, { ndcg: [], recall: [], mrr: [] }]));
  const shallow: Acc = { ndcg: [], recall: [], mrr: [] };
  // Latency per mode, each timed on its own retrieval at the eval's depth (the fusion variants share the
  // hybrid one), and the hybrid retrieval at search's default depth.
  const lat: number[] = [];
  const latMode: Record<'lexical' | 'vector', number[]> = { lexical: [], vector: [] };
  const latShallow: number[] = [];
  const timed = async <T>(into: number[], f: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const out = await f();
    into.push(performance.now() - t);
    return out;
  };
  const bar = createProgress(model ? 'queries (hybrid)' : 'queries (lexical)', { quiet });
  for (const [i, q] of queries.entries()) {
    const retrieved = await timed(lat, async () => {
      const r = await retrieveCandidates(deps, { tenantId: TENANT, viewer: ALL_DOCUMENTS, query: q.text, limit, candidates: limit, mode: model ? 'hybrid' : 'lexical', queryModel: model ?? undefined });
      rankCandidates(r, { limit: 10 });
      return r;
    });
    const rels = qrels.get(q.id) ?? new Map<string, number>();
    for (const v of variants) {
      const ranked = docRanking(v.rank(retrieved), externalIds);
      const a = acc.get(v.key);
      if (!a) continue;
      a.ndcg.push(ndcgAt(ranked, rels, 10));
      a.recall.push(recallAt(ranked, rels, 100));
      a.mrr.push(mrrAt(ranked, rels, 10));
    }
    if (model) {
      for (const mode of ['lexical', 'vector'] as const) {
        await timed(latMode[mode], async () =>
          rankCandidates(await retrieveCandidates(deps, { tenantId: TENANT, viewer: ALL_DOCUMENTS, query: q.text, limit, candidates: limit, mode, queryModel: model }), { limit: 10 }),
        );
      }
      const d = await timed(latShallow, async () => {
        const r = await retrieveCandidates(deps, { tenantId: TENANT, viewer: ALL_DOCUMENTS, query: q.text, limit: 10, mode: 'hybrid', queryModel: model });
        rankCandidates(r, { limit: 10 });
        return r;
      });
      const ranked = docRanking(rankCandidates(d, { limit: d.candidates.length || 1 }), externalIds);
      shallow.ndcg.push(ndcgAt(ranked, rels, 10));
      shallow.mrr.push(mrrAt(ranked, rels, 10));
    }
    bar.update(i + 1, queries.length);
  }
  bar.done();
  // Without a model the lexical retrieval is the only one, timed as `lat`.
  const times = (v: Variant) => (v.mode === 'hybrid' || !model ? lat : latMode[v.mode]);
  const result = (v: Variant): ModeResult => {
    const a = acc.get(v.key) ?? { ndcg: [], recall: [], mrr: [] };
    return {
      mode: v.mode,
      ...(v.fusion ? { fusion: v.fusion } : {}),
      ...(v.alpha !== undefined ? { alpha: v.alpha } : {}),
      ...(v.feedback ? { feedback: v.feedback } : {}),
      ndcg_at_10: round(mean(a.ndcg)),
      recall_at_100: round(mean(a.recall)),
      mrr_at_10: round(mean(a.mrr)),
      p50_ms: round(percentile(times(v), 50), 2),
      p95_ms: round(percentile(times(v), 95), 2),
    };
  };
  const [lex, vec, ...rest] = variants;
  const defaultDepth = model
    ? {
        ...defaultDepths(10),
        ndcg_at_10: round(mean(shallow.ndcg)),
        mrr_at_10: round(mean(shallow.mrr)),
        p50_ms: round(percentile(latShallow, 50), 2),
        p95_ms: round(percentile(latShallow, 95), 2),
      }
    : null;
  return { lexical: result(lex as Variant), vector: vec ? result(vec) : null, variants: rest.map(result), defaultDepth };
}
