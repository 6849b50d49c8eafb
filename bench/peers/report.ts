// The markdown of the peers benchmark: one column per engine, then Atrium (embedded) / peer ratios.
import os from 'node:os';
import type { EngineResult, Mode } from './measure.ts';

const LABEL: Record<string, string> = {
  atrium: 'Atrium embedded (PGlite, HTTP push)',
  'atrium-pg': 'Atrium production (PostgreSQL 15, real[] vectors)',
  lancedb: 'LanceDB 0.31 (in-process)',
  orama: 'Orama 3 (in-process JS)',
};

export function peersReport(o: { docs: number; queries: number; startLine: string; results: readonly EngineResult[] }): string {
  const { results } = o;
  const atrium = results.find((r) => r.engine === 'atrium');
  const peers = results.filter((r) => r.engine === 'lancedb' || r.engine === 'orama');
  const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '—');
  const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');
  const mb = (x: number) => `${(x / 2 ** 20).toFixed(0)} MB`;
  type Row = [string, (r: EngineResult) => number | undefined, (x: number) => string, boolean?];
  const rows: Row[] = [
    ['ingest, whole corpus (docs/s, wall, incl. index build)', (r) => r.ingest.docs / r.ingest.wallS, f0],
    ['ingest CPU (docs per CPU-second of the engine process)', (r) => r.ingest.docs / Math.max(r.ingest.cpuS, 0.01), f0],
    ['first batch of 1,000 (docs/s wall)', (r) => r.ingest.firstDps, f0],
    ['last batch of 1,000 (docs/s wall)', (r) => r.ingest.lastDps, f0],
    ['last batch / first batch time', (r) => r.ingest.firstDps / r.ingest.lastDps, (x) => x.toFixed(2)],
    ['first batch (docs per CPU-second)', (r) => r.ingest.firstCpuDps, f0],
    ['last batch (docs per CPU-second)', (r) => r.ingest.lastCpuDps, f0],
    ['index build / persist after the last batch (s)', (r) => r.ingest.finishS, f1],
    ['disk (MB)', (r) => r.diskBytes / 2 ** 20, f0],
    ['disk per document (KB)', (r) => r.diskBytes / 1024 / r.ingest.docs, f1],
    ['peak RSS (MB)', (r) => r.peakRssBytes / 2 ** 20, f0],
    ['cold start → /v1/health (ms)', (r) => r.coldOpen?.healthMs, f0],
    ['cold start → first hybrid answer (ms)', (r) => r.coldOpen?.firstHybridMs, f0],
  ];
  for (const m of ['hybrid', 'lexical', 'vector'] as Mode[]) {
    rows.push([`${m} p50 (ms)`, (r) => r.latency[m]?.p50, f1]);
    rows.push([`${m} p99 (ms)`, (r) => r.latency[m]?.p99, f1]);
    rows.push([`${m} 4 clients (q/s)`, (r) => r.latency[m]?.c4Qps, f1]);
    rows.push([`${m} 4 clients p50 (ms)`, (r) => r.latency[m]?.c4P50, f1]);
  }
  for (const set of Object.keys(atrium?.ndcg ?? peers[0]?.ndcg ?? {})) {
    rows.push([`nDCG@10 ${set}, best mode`, (r) => Math.max(...Object.values(r.ndcg?.[set] ?? {}).filter((x): x is number => typeof x === 'number')), (x) => x.toFixed(3)]);
    for (const m of ['hybrid', 'lexical', 'vector'] as Mode[]) rows.push([`nDCG@10 ${set}, ${m}`, (r) => r.ndcg?.[set]?.[m], (x) => x.toFixed(3)]);
  }
  let md = `## Peers: Atrium vs LanceDB and Orama on the same corpus (issue 29)\n\n${o.startLine}\n`;
  md += `Command: \`npm run bench -- peers --docs ${o.docs}\` (default 100,000). Load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}; the machine is shared, so wall times include waiting for CPU (the CPU rows do not).\n\n`;
  md += `Corpus: ${o.docs.toLocaleString('en')} documents of ~1 KB made only from text on disk (sentences of the shared cranfield, coffee-stackexchange and Slack sets recombined with a seeded generator: a 4-8-word title and ~950 characters of body, one Atrium chunk each; \`bench/peers/corpus.ts\`), the same GloVe 100-d vectors (\`builtin/glove-100d\` over title + body) for every engine. `;
  md += `Atrium: \`atrium serve\` as its own process, documents pushed through \`POST /v1/connectors/:id/documents\` in batches of 1,000, queries through \`POST /v1/search\` (HTTP and query embedding included; CPU and RSS are the server process's). LanceDB: \`table.add\` per batch of 1,000, then an FTS index and an HNSW-SQ cosine index; hybrid = its RRF reranker. Orama: \`insertMultiple\` per batch, persisted with \`save\` as JSON; hybrid = its hybrid mode. `;
  md += `Latency: ${o.queries} queries of the shared sets, top 10, sequential, then the same queries from 4 concurrent clients. Cold start: a new process on the existing folder until its first hybrid answer. nDCG@10: a fresh index of each shared set per engine (Atrium: \`atrium eval\`, the shipped hybrid).\n\n`;
  const cols = results.map((r) => LABEL[r.engine] ?? r.engine);
  const ratioCols = atrium ? peers.map((p) => `Atrium / ${p.engine}`) : [];
  md += `| | ${[...cols, ...ratioCols].join(' | ')} |\n|---|${[...cols, ...ratioCols].map(() => '---').join('|')}|\n`;
  for (const [label, get, fmt] of rows) {
    const cells = results.map((r) => {
      const v = get(r);
      return v === undefined || !Number.isFinite(v) ? '—' : fmt(v);
    });
    const ratios = atrium
      ? peers.map((p) => {
          const a = get(atrium);
          const b = get(p);
          return a === undefined || b === undefined || !b ? '—' : `${(a / b).toFixed(2)}×`;
        })
      : [];
    md += `| ${label} | ${[...cells, ...ratios].join(' | ')} |\n`;
  }
  const notes = results.flatMap((r) => r.notes.map((n) => `${r.engine}: ${n}`));
  md += `\nLoad average at the end of each engine's run: ${results.map((r) => `${r.engine} ${r.load}`).join('; ')}.${notes.length ? ` Notes: ${notes.join('; ')}.` : ''}\n`;
  const curve = (r: EngineResult) => r.ingest.batchDps.filter((_, i, a) => i % Math.max(1, Math.floor(a.length / 10)) === 0 || i === a.length - 1).map((x) => x.toFixed(0)).join(', ');
  md += `\nIngest rate by batch (docs/s wall, every ${Math.max(1, Math.floor((atrium?.ingest.batchDps.length ?? 10) / 10))}th batch): ${results.map((r) => `${r.engine}: ${curve(r)}`).join('; ')}.\n`;
  md += `\nMemory units: ${mb(2 ** 20)} = 2^20 bytes.\n`;
  return md;
}
