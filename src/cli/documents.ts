import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ensureTenant } from '../access/index.ts';
import { loadConfig } from '../config/index.ts';
import { claimIngestedFrom, completeLocalScan, ensureLocalSource, localSourceState } from '../connectors/index.ts';
import { type EvalResult, type ModeResult, runEval } from '../documents/eval/run.ts';
import {
  type DocumentInput,
  type DocumentsDeps,
  deleteDocuments,
  embedPendingChunks,
  folderSettingsSchema,
  folderStateSchema,
  scanFolder,
  ALL_DOCUMENTS,
  searchPassages,
  upsertDocuments,
} from '../documents/index.ts';
import { createProgress } from '../documents/progress.ts';
import { createEmbeddingRegistry } from '../embeddings/index.ts';
import { createLogger, type Logger } from '../platform/log.ts';
import { ingestFolderThroughService, nothingToIngest } from './folder-push.ts';
import { type DocumentSource, documentSourceFor } from '../connectors/imports.ts';
import type { OperationRequestBody } from '../../packages/client/src/index.ts';
import { callService, type Service, type StorageTarget, storageFor, withStorage } from './storage.ts';

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer');
  return n;
};
const collect = (v: string, prev: string[]) => [...prev, v];

/** Storage (resolved by `storageFor`) + (optionally) embeddings for one CLI command; closes both. */
async function withDocuments<T>(target: StorageTarget, env: NodeJS.ProcessEnv, command: string, embed: boolean, fn: (deps: DocumentsDeps & { log: Logger }) => Promise<T>): Promise<T> {
  return withStorage(target, env, command, async ({ db, log, config }) => {
    const embeddings = embed ? createEmbeddingRegistry(config, log) : undefined;
    try {
      return await fn({ db, log, embeddings, config });
    } finally {
      await embeddings?.close();
    }
  });
}

interface IngestOptions {
  source?: string;
  tenant: string;
  model?: string;
  embed: boolean;
  json?: boolean;
  apiKey?: string;
  idColumn?: string;
  titleColumn?: string;
  textColumn: string[];
  urlColumn?: string;
  authorColumn?: string;
  dateColumn?: string;
  slackUrl?: string;
}

/** Checks a document source whole (nothing is stored when one document is bad), with a progress line. */
async function checkSource(docs: DocumentSource): Promise<number> {
  const bar = createProgress('check');
  const total = await docs.check((n) => bar.update(n, null));
  bar.done(`check: ${docs.kind}, ${total} documents`);
  for (const line of docs.notes()) process.stderr.write(`${line}\n`);
  if (total === 0) throw new Error(`${docs.kind}: no documents in it, nothing stored`);
  return total;
}

/** A document as the push API's schema types it: a checked DocumentInput, whose ACL lists are readonly arrays there. */
type PushedDocument = OperationRequestBody<'postConnectorDocuments'>['documents'][number];

/** Documents per forwarded push request (the push API takes at most 1,000). */
const PUSH_BATCH = 500;

/**
 * `ingest <file>` (JSONL, CSV, an export) through the running service: the file is checked whole first, as locally, then pushed
 * in batches to an `api` source: `--source`, or the one whose display name is the file's default source id
 * (created on the first run), so running it again updates the same documents.
 */
async function ingestThroughService(service: Service, file: string, docs: DocumentSource, source: string | undefined, total: number) {
  const started = Date.now();
  let connectorId = source;
  if (!connectorId) {
    const name = withPathHash(`api-${slug(path.basename(file, path.extname(file)))}`, file);
    const list = await callService(service, (atrium) => atrium.GET('/v1/connectors'));
    connectorId = list.connectors.find((c) => c.connector_type === 'api' && c.display_name === name)?.connector_id;
    connectorId ??= (await callService(service, (atrium) => atrium.POST('/v1/connectors', { body: { connector_type: 'api', display_name: name } }))).connector_id;
  }
  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let n = 0;
  const bar = createProgress('ingest');
  const send = async (batch: DocumentInput[]) => {
    const r = await callService(service, (atrium) => atrium.POST('/v1/connectors/{connector_id}/documents', { params: { path: { connector_id: connectorId } }, body: { documents: batch as PushedDocument[] } }));
    added += r.added;
    updated += r.updated;
    unchanged += r.unchanged;
    n += batch.length;
    bar.update(n, total);
  };
  let batch: DocumentInput[] = [];
  for await (const d of docs.documents()) {
    batch.push(d);
    if (batch.length === PUSH_BATCH) {
      await send(batch);
      batch = [];
    }
  }
  if (batch.length) await send(batch);
  bar.done(`ingest: ${n} documents sent to ${service.url}`);
  return { source: connectorId, tenant: null, added, updated, unchanged, deleted: 0, embedded_chunks: 0, model: null, errors: [], seconds: (Date.now() - started) / 1000, service: service.url };
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'source';

/** A stored connector's settings (`{}` when it has none), or undefined when there is no such connector. */
async function storedSettings(deps: DocumentsDeps, tenant: string, id: string): Promise<Record<string, unknown> | undefined> {
  return (await localSourceState(deps.db, tenant, id))?.settings;
}

/** The settings path of a stored connector, or undefined when there is none (or no connector). */
async function storedPath(deps: DocumentsDeps, tenant: string, id: string): Promise<string | undefined> {
  const p = (await storedSettings(deps, tenant, id))?.path;
  return typeof p === 'string' ? path.resolve(p) : undefined;
}

/** A default source id for a file or folder: its bare-name id plus 8 hex of a hash of its absolute path. */
const withPathHash = (legacy: string, abs: string) => `${legacy}-${createHash('sha256').update(abs).digest('hex').slice(0, 8)}`;

/**
 * The default source of a folder: its name plus a hash of its absolute path, so two folders of the same name
 * are two sources. A source made by an older CLI under the bare name keeps being used for its own folder.
 */
async function defaultFolderSource(deps: DocumentsDeps, tenant: string, folder: string): Promise<string> {
  const legacy = `filesystem-${slug(path.basename(folder))}`;
  if ((await storedPath(deps, tenant, legacy)) === folder) return legacy;
  return withPathHash(legacy, folder);
}

/**
 * The default source of a JSONL file: `api-<file name>` plus a hash of its absolute path, so two files of the
 * same name (whose external ids would overwrite each other) are two sources. The path is recorded in the
 * source's settings (`ingested_from`); a bare-name source of an older CLI, which recorded none, keeps being
 * used for the file that claims it first.
 */
async function defaultJsonlSource(deps: DocumentsDeps, tenant: string, file: string): Promise<string> {
  const legacy = `api-${slug(path.basename(file, path.extname(file)))}`;
  const settings = await storedSettings(deps, tenant, legacy);
  if (settings && (settings.ingested_from === undefined || settings.ingested_from === file)) return legacy;
  return withPathHash(legacy, file);
}

async function ensureConnector(deps: DocumentsDeps, tenant: string, id: string, type: string, settings: Record<string, unknown>): Promise<Record<string, unknown>> {
  await ensureTenant(deps.db, tenant);
  return ensureLocalSource(deps.db, tenant, id, type, settings);
}

/** `atrium ingest` into the data folder itself (no running service): a document source or a folder scan, then the embeddings. */
async function ingestLocally(deps: DocumentsDeps & { log: Logger }, opts: IngestOptions, abs: string, docs: DocumentSource | null) {
  const tenantId = opts.tenant;
  const started = Date.now();
  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let deleted = 0;
  let errors: { path: string; message: string }[] = [];
  const bar = createProgress('ingest');
  const store = async (connectorId: string, batch: DocumentInput[]) => {
    const r = await upsertDocuments(deps, { tenantId, connectorId, documents: batch, embed: 'none' });
    added += r.added;
    updated += r.updated;
    unchanged += r.unchanged;
  };
  let connectorId: string;
  if (docs) {
    connectorId = opts.source ?? (await defaultJsonlSource(deps, tenantId, abs));
    // All or nothing: every document is checked (one fast read, which also gives the progress line a total)
    // before the first one is stored.
    const total = await checkSource(docs);
    await ensureConnector(deps, tenantId, connectorId, 'api', { ingested_from: abs });
    if (!opts.source) {
      // Claims a bare-name source of an older CLI for this file (see defaultJsonlSource).
      await claimIngestedFrom(deps.db, tenantId, connectorId, abs);
    }
    let batch: DocumentInput[] = [];
    let n = 0;
    for await (const d of docs.documents()) {
      batch.push(d);
      if (batch.length === 500) {
        await store(connectorId, batch);
        n += batch.length;
        batch = [];
        bar.update(n, total);
      }
    }
    if (batch.length) await store(connectorId, batch);
    bar.done(`ingest: ${n + batch.length} documents read`);
  } else {
    connectorId = opts.source ?? (await defaultFolderSource(deps, tenantId, abs));
    // A source indexes one folder: scanning another one into it would delete the first one's documents.
    const indexed = await storedPath(deps, tenantId, connectorId);
    if (indexed !== undefined && indexed !== abs) {
      throw new InvalidArgumentError(
        `source '${connectorId}' indexes ${indexed}, not ${abs}: ingesting here would replace its documents. ` +
          `Pass another --source (or none: each folder gets its own source), or delete source '${connectorId}' first (DELETE /v1/connectors/${connectorId}) to re-point it`,
      );
    }
    const source = await localSourceState(deps.db, tenantId, connectorId);
    const existing = source?.settings;
    const settings = existing ?? {};
    // The scan state is the source's sync cursor (what the server's own syncs keep), never one of its settings;
    // an older CLI kept it in settings.scan_state.
    const prev = folderStateSchema.safeParse(source?.cursor ?? settings.scan_state);
    // A source made on the server keeps its include / exclude / size settings here too.
    const stored = folderSettingsSchema.omit({ path: true }).safeParse(settings);
    const scanBar = createProgress('scan');
    const scan = await scanFolder({ ...(stored.success ? stored.data : {}), path: abs }, prev.success ? prev.data : null, {
      onProgress: (n) => scanBar.update(n, null),
    });
    scanBar.done(`scan: ${scan.upserts.length + scan.unchanged + scan.errors.filter((e) => !e.path.endsWith('/')).length} files`);
    errors = scan.errors;
    if (existing === undefined && scan.upserts.length === 0 && scan.unchanged === 0) {
      const unreadable = scan.errors.length ? ` (${scan.errors.length} unreadable: ${scan.errors.slice(0, 3).map((e) => e.path).join(', ')})` : '';
      throw new Error(nothingToIngest(abs, unreadable));
    }
    await ensureConnector(deps, tenantId, connectorId, 'filesystem', { path: abs });
    unchanged += scan.unchanged;
    for (let i = 0; i < scan.upserts.length; i += 200) {
      await store(connectorId, scan.upserts.slice(i, i + 200));
      bar.update(Math.min(scan.upserts.length, i + 200), scan.upserts.length);
    }
    bar.done(`ingest: ${scan.upserts.length} files changed, ${scan.unchanged} unchanged, ${scan.deletes.length} removed`);
    deleted = (await deleteDocuments(deps, { tenantId, connectorId, externalIds: scan.deletes })).deleted;
    await completeLocalScan(deps.db, tenantId, connectorId, scan.state);
  }
  let embedded = 0;
  let model: string | null = null;
  if (deps.embeddings) {
    const eb = createProgress('embed');
    const r = await embedPendingChunks(deps, { tenantId, model: opts.model, batchSize: 256, onProgress: (p) => eb.update(p.done, p.total) });
    eb.done(`embed: ${r.embedded} chunks with ${r.model}`);
    embedded = r.embedded;
    model = r.model;
  }
  return { source: connectorId, tenant: tenantId, added, updated, unchanged, deleted, embedded_chunks: embedded, model, errors, seconds: (Date.now() - started) / 1000 };
}

// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export function registerDocumentCommands(program: Command, env: NodeJS.ProcessEnv): void {
  program
    .command('ingest <target>')
    .description(
      'index a folder (Markdown, text, HTML, PDF, DOCX; incremental), a Slack export (zip or folder), a Notion or Confluence export zip, a CSV file or a JSONL file of documents',
    )
    .option('--source <id>', 'connector id to store under (created if missing)')
    .option('--tenant <id>', 'tenant', 'default')
    .option('--model <id>', 'embedding model (default: ATRIUM_EMBEDDING_MODEL)')
    .option('--no-embed', 'full-text only; vectors can be made later by the server')
    .option('--json', 'print a JSON summary')
    .option('--api-key <key>', 'a key with connector:read and connector:write, to send documents through the running service (ATRIUM_API_KEY)')
    .option('--id-column <name>', 'CSV / JSONL: the column that is each document\'s id (default: the row number)')
    .option('--title-column <name>', 'CSV / JSONL: the title column (default: the first column)')
    .option('--text-column <name>', 'CSV / JSONL: a text column (repeatable; default: every other column, as "Column: value" lines)', collect, [] as string[])
    .option('--url-column <name>', 'CSV / JSONL: the link column')
    .option('--author-column <name>', 'CSV / JSONL: the author column')
    .option('--date-column <name>', 'CSV / JSONL: the last-updated date column')
    .option('--slack-url <url>', 'Slack export: the workspace URL (https://acme.slack.com), for message permalinks')
    .action(async (target: string, opts: IngestOptions) => {
      const abs = path.resolve(target);
      const st = await fs.stat(abs).catch(() => null);
      if (!st) throw new InvalidArgumentError(`${target}: no such file or folder`);
      const mapping = { id: opts.idColumn, title: opts.titleColumn, text: opts.textColumn, url: opts.urlColumn, author: opts.authorColumn, date: opts.dateColumn };
      const docs = await documentSourceFor(abs, { mapping, teamUrl: opts.slackUrl }).catch((err: Error) => {
        throw new InvalidArgumentError(err.message);
      });
      if (!docs && (opts.textColumn.length > 0 || Object.entries(mapping).some(([k, v]) => k !== 'text' && v !== undefined))) {
        throw new InvalidArgumentError('the --*-column options map CSV and JSONL files, not a folder');
      }
      const where = await storageFor(env, {
        command: 'ingest',
        forward: { permission: 'connector:write', apiKey: opts.apiKey ?? env.ATRIUM_API_KEY },
      });
      const service = where.service;
      const summary = service
        ? await (async () => {
            if (opts.tenant !== 'default') throw new InvalidArgumentError('--tenant: through the service, documents go to the API key\'s tenant');
            if (!docs) return ingestFolderThroughService(env, service, abs, opts.source, withPathHash(`folder-${slug(path.basename(abs))}`, abs));
            const total = await checkSource(docs);
            return ingestThroughService(service, abs, docs, opts.source, total);
          })()
        : await withDocuments(where, env, 'ingest', opts.embed, (deps) => ingestLocally(deps, opts, abs, docs));
      if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else {
        process.stdout.write(
          `${summary.source}: ${summary.added} added, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.deleted} deleted` +
            `${summary.model ? `, ${summary.embedded_chunks} chunks embedded (${summary.model})` : ''} in ${summary.seconds.toFixed(1)} s\n`,
        );
        for (const e of summary.errors) process.stderr.write(`skipped ${e.path}: ${e.message}\n`);
      }
    });

  program
    .command('search <query>')
    .description('hybrid search (BM25 + vectors) over the indexed documents')
    .option('--source <id>', 'restrict to a connector id (repeatable)', collect, [] as string[])
    .option('--limit <n>', 'passages to show', positiveInt, 10)
    .option('--tenant <id>', 'tenant', 'default')
    .addOption(new Option('--mode <mode>', 'retrieval mode').choices(['hybrid', 'lexical', 'vector']).default('hybrid'))
    .option('--json', 'print JSON')
    .option('--api-key <key>', 'a key with the query permission, to search through the running service (ATRIUM_API_KEY)')
    .action(async (query: string, opts: { source: string[]; limit: number; tenant: string; mode: string; json?: boolean; apiKey?: string }) => {
      const mode = opts.mode as 'hybrid' | 'lexical' | 'vector';
      const where = await storageFor(env, { command: 'search', mustExist: true, forward: { permission: 'query', apiKey: opts.apiKey ?? env.ATRIUM_API_KEY } });
      const sources = opts.source.length ? opts.source : undefined;
      const passages = where.service
        ? (await callService(where.service, (atrium) => atrium.POST('/v1/search', { body: { query, sources, limit: opts.limit, mode } }))).passages
        : (await withDocuments(where, env, 'search', mode !== 'lexical', (deps) => searchPassages(deps, { tenantId: opts.tenant, query, sources, limit: opts.limit, mode, viewer: ALL_DOCUMENTS }))).map(({ vector: _v, ...p }) => p);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ passages })}\n`);
        return;
      }
      if (passages.length === 0) process.stdout.write('no results\n');
      for (const [i, p] of passages.entries()) {
        const sem = p.semantic_score === null ? '—' : p.semantic_score.toFixed(3);
        process.stdout.write(
          `${i + 1}. ${p.title || p.external_id}  [${p.source_node}/${p.external_id}]  fused ${p.fused_score.toFixed(3)}  bm25 ${p.lexical_score.toFixed(2)}  cos ${sem}\n` +
            `   ${p.content.replace(/\s+/g, ' ').slice(0, 200)}\n`,
        );
      }
    });

  program
    .command('eval')
    .description('retrieval quality on a BEIR folder (corpus.jsonl, queries.jsonl, qrels.tsv) in a fresh temporary store')
    .requiredOption('--dataset <dir>', 'BEIR-layout folder')
    .option('--model <id>', 'embedding model (default: ATRIUM_EMBEDDING_MODEL)')
    .option('--lexical-only', 'BM25 only, no embeddings')
    .option('--json', 'print one JSON object')
    .action(async (opts: { dataset: string; model?: string; lexicalOnly?: boolean; json?: boolean }) => {
      const config = loadConfig(env);
      const log = createLogger({ level: env.LOG_LEVEL ?? 'warn', destination: process.stderr as never });
      const embeddings = opts.lexicalOnly ? undefined : createEmbeddingRegistry(config, log);
      try {
        const r = await runEval({ dataset: path.resolve(opts.dataset), embeddings, model: opts.model, log });
        process.stdout.write(opts.json ? `${JSON.stringify(r)}\n` : formatEval(r));
      } finally {
        await embeddings?.close();
      }
    });
}

function formatEval(r: EvalResult): string {
  const ms = (p50: number, p95: number) => `${p50.toFixed(1)} / ${p95.toFixed(1)}`;
  const row = (name: string, m: ModeResult, latency = true) =>
    `${name.padEnd(34)} ${m.ndcg_at_10.toFixed(4)}   ${m.recall_at_100.toFixed(4)}   ${m.mrr_at_10.toFixed(4)}${latency ? `   ${ms(m.p50_ms, m.p95_ms)}` : ''}\n`;
  let out = `${r.dataset}: ${r.docs} docs, ${r.chunks} chunks, ${r.queries} judged queries; model ${r.model ?? 'none'}\n`;
  out += `ingest ${r.ingest_seconds.toFixed(1)} s, embed ${r.embed_seconds.toFixed(1)} s; 300 candidates per list unless noted\n\n`;
  out += `${'run'.padEnd(34)} nDCG@10  Recall@100  MRR@10   p50 / p95 ms\n`;
  out += row(`hybrid (default)`, r);
  out += row('lexical (BM25)', r.lexical);
  if (r.vector) out += row('vector', r.vector);
  const d = r.default_depth;
  if (d) out += `${`hybrid, search's depth (${d.lexical}+${d.vector})`.padEnd(34)} ${d.ndcg_at_10.toFixed(4)}   ${'—'.padEnd(10)} ${d.mrr_at_10.toFixed(4)}   ${ms(d.p50_ms, d.p95_ms)}\n`;
  // The fusion variants re-rank the hybrid run's candidates: its latency, not repeated per row.
  for (const f of r.fusions) {
    const prf = f.feedback ? ` +prf(m=${f.feedback.docs},β=${f.feedback.beta})` : '';
    out += row(`${f.fusion}${f.alpha !== undefined ? ` α=${f.alpha}` : ''}${prf}`, f, false);
  }
  return out;
}
