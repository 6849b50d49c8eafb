// `npm run bench -- search-eval`: retrieval quality (atrium eval) on the shared BEIR sets with the
// default embedding model, every fusion variant ranked from the same candidates, plus the CPU cost of
// the vector pseudo-relevance feedback stage. Writes the "search-eval" section of docs/benchmarks.md.
// BENCH_EVAL_SETS=cranfield,coffee-stackexchange (folders under ../shared/data) narrows the run.
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.ts';
import { type EvalResult, type ModeResult, runEval } from '../src/documents/eval/run.ts';
import { DEFAULT_FEEDBACK, rocchioCandidates, rowVectors } from '../src/documents/feedback.ts';
import type { Candidate } from '../src/documents/fusion.ts';
import { DEFAULT_ALPHA, DEFAULT_FUSION } from '../src/documents/search/index.ts';
import { createEmbeddingRegistry } from '../src/embeddings/registry.ts';
import { createLogger } from '../src/platform/log.ts';
import { machineLine, writeBenchSection } from './report.ts';

const DATA = path.resolve(import.meta.dirname, '../../shared/data');
const sets = (process.env.BENCH_EVAL_SETS ?? 'cranfield,coffee-stackexchange').split(',').filter(Boolean);

const log = createLogger({ level: 'warn', destination: process.stderr as never });
const config = loadConfig(process.env);
const startLine = machineLine();
const results: { r: EvalResult; cpuS: number; load: number }[] = [];
for (const set of sets) {
  const embeddings = createEmbeddingRegistry(config, log);
  const cpu = process.cpuUsage();
  const load = os.loadavg()[0] ?? 0;
  try {
    const r = await runEval({ dataset: path.join(DATA, set), embeddings, log, quiet: true });
    const used = process.cpuUsage(cpu);
    results.push({ r, cpuS: (used.user + used.system) / 1e6, load });
    console.error(`${set}: hybrid ${r.ndcg_at_10} vs BM25 ${r.lexical.ndcg_at_10}`);
  } finally {
    await embeddings.close();
  }
}

/** CPU per query of the feedback stage on a realistic candidate set: 600 rows, 100-d vectors as text. */
function feedbackCostMs(n = 600, dims = 100, reps = 200): number {
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return (seed / 2 ** 31) * 2 - 1;
  };
  const rows = Array.from({ length: n }, (_, i) => ({ chunk_id: `c${i}`, semantic: 0.5, vec: `[${Array.from({ length: dims }, () => rnd().toFixed(6)).join(',')}]` }));
  const cands: Candidate[] = rows.map((r, i) => ({ id: r.chunk_id, lexical: n - i, semantic: rnd(), lexRank: i < n / 2 ? i + 1 : null, vecRank: i >= n / 2 ? i - n / 2 + 1 : null }));
  const t = process.cpuUsage();
  for (let i = 0; i < reps; i++) rocchioCandidates(cands, rowVectors(rows), DEFAULT_FEEDBACK);
  const u = process.cpuUsage(t);
  return (u.user + u.system) / 1000 / reps;
}
const fbMs = feedbackCostMs();

const f4 = (x: number) => x.toFixed(4);
const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
const fb = DEFAULT_FEEDBACK;
const find = (r: EvalResult, pred: (v: ModeResult) => boolean) => r.fusions.find(pred);
const isFb = (v: ModeResult, d = fb.docs, b = fb.beta) => v.feedback?.docs === d && v.feedback?.beta === b;

let md = '## Retrieval quality (atrium eval)\n\n';
md += `${startLine}\n`;
md += `Command: \`npm run bench -- search-eval\` (= \`./bin/atrium eval --dataset ../shared/data/<set> --json\` per set: fresh in-memory PGlite; chunks of ≤ 1,000 characters; documents ranked by their best chunk; one hybrid retrieval of 300 candidates per query, every variant ranked from the same candidates). `;
md += `Default: ${DEFAULT_FUSION}, α = ${DEFAULT_ALPHA}, with vector pseudo-relevance feedback (Rocchio, m = ${fb.docs}, β = ${fb.beta}; docs/retrieval.md).\n\n`;
md += `| dataset | model | docs / chunks / queries | BM25 nDCG@10 | vector | RRF | convex α=0.3 (no feedback) | **hybrid (default)** | Δ vs BM25 | hybrid at search's depth¹ | hybrid Recall@100 | hybrid MRR@10 | embed s |\n`;
md += '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n';
for (const { r } of results) {
  const rrf = find(r, (v) => v.fusion === 'rrf' && !v.feedback);
  const c3 = find(r, (v) => v.fusion === 'convex' && v.alpha === 0.3 && !v.feedback);
  md += `| ${path.basename(r.dataset)} | \`${r.model}\` | ${r.docs} / ${r.chunks} / ${r.queries} | ${f4(r.lexical.ndcg_at_10)} | ${r.vector ? f4(r.vector.ndcg_at_10) : '—'} | ${rrf ? f4(rrf.ndcg_at_10) : '—'} | ${c3 ? f4(c3.ndcg_at_10) : '—'} | **${f4(r.ndcg_at_10)}** | ${sign(r.ndcg_at_10 - r.lexical.ndcg_at_10)} | ${r.default_depth ? `${f4(r.default_depth.ndcg_at_10)} (${sign(r.default_depth.ndcg_at_10 - r.lexical.ndcg_at_10)})` : '—'} | ${f4(r.recall_at_100)} | ${f4(r.mrr_at_10)} | ${Math.round(r.embed_seconds)} |\n`;
}
md += `\n¹ The default ranking from the candidate depths \`search\` uses for 10 results (lexical ${results[0]?.r.default_depth?.lexical ?? 100}, vector ${results[0]?.r.default_depth?.vector ?? 30}) instead of 300 per list; nDCG@10.\n`;
md += `\nBM25 alone: ${results.map(({ r }) => `Recall@100 ${f4(r.lexical.recall_at_100)} / MRR@10 ${f4(r.lexical.mrr_at_10)} (${path.basename(r.dataset)})`).join(', ')}. nDCG@10 by convex α, without and with feedback (m = ${fb.docs}, β = ${fb.beta}):\n\n`;
const alphas = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
md += `| run | ${alphas.join(' | ')} |\n|---|${alphas.map(() => '---').join('|')}|\n`;
for (const { r } of results) {
  for (const withFb of [false, true]) {
    const cells = alphas.map((a) => find(r, (v) => v.fusion === 'convex' && v.alpha === a && (withFb ? isFb(v) : !v.feedback)));
    md += `| ${path.basename(r.dataset)}, ${r.model}${withFb ? ', feedback' : ''} | ${cells.map((c) => (c ? f4(c.ndcg_at_10) : '—')).join(' | ')} |\n`;
  }
}
const grid = [3, 5, 10].flatMap((d) => [0.5, 1, 2].map((b) => ({ d, b })));
md += `\nFeedback settings at α = ${DEFAULT_ALPHA} (nDCG@10; m = feedback passages, β = weight of their mean vector):\n\n`;
md += `| run | ${grid.map((g) => `m=${g.d} β=${g.b}`).join(' | ')} |\n|---|${grid.map(() => '---').join('|')}|\n`;
for (const { r } of results) {
  const cells = grid.map((g) => find(r, (v) => v.fusion === 'convex' && v.alpha === DEFAULT_ALPHA && isFb(v, g.d, g.b)));
  md += `| ${path.basename(r.dataset)}, ${r.model} | ${cells.map((c) => (c ? f4(c.ndcg_at_10) : '—')).join(' | ')} |\n`;
}
const rrfFb = results.map(({ r }) => find(r, (v) => v.fusion === 'rrf' && !!v.feedback)).map((v) => (v ? f4(v.ndcg_at_10) : '—'));
md += `\nRRF with feedback: ${rrfFb.join(' / ')}. `;
md += `Cost of the feedback stage (parse ~600 candidate vectors of 100 dimensions, re-score): ${fbMs.toFixed(2)} ms CPU per query (synthetic candidate set, ${DEFAULT_FEEDBACK.docs} feedback passages). `;
md += `Eval process CPU: ${results.map(({ r, cpuS, load }) => `${path.basename(r.dataset)} ${cpuS.toFixed(0)} s (load average ${load.toFixed(1)} at its start; query p50 ${r.p50_ms.toFixed(0)} ms wall)`).join(', ')}; wall-clock latencies here are inflated by the shared machine, see the search benchmark for CPU time per query.\n\n`;
md += 'USE lite (`builtin/use-lite-512d`), measured 2026-11-23 with `./bin/atrium eval --dataset <set> --model builtin/use-lite-512d --json` (not repeated by this bench: embedding runs at ~8-16 chunks/s here). nDCG@10, BM25 / vector / shipped hybrid (α = 0.4 + feedback) / at the depths search uses / best cell of the grid: cranfield 0.3595 / 0.1905 / 0.3883 (+0.0288) / 0.3905 (+0.0310) / 0.3954 (+0.0359, α = 0.5 + feedback), 136 s to embed 2,237 chunks; coffee-stackexchange 0.6073 / 0.3500 / 0.6262 (+0.0189) / 0.6266 (+0.0193) / 0.6351 (+0.0278, α = 0.5, no feedback), 69 s to embed 541 chunks. So even the transformer, with the shipped pipeline, misses +0.03 on coffee-stackexchange; feedback helps it on cranfield and hurts it on coffee.\n';
await writeBenchSection('search-eval', md);
console.error(`feedback stage ${fbMs.toFixed(3)} ms CPU per query`);
