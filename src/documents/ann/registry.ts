import type { DatabaseExecutor } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { indexName } from '../vectors.ts';
import { indexFiles, type IndexFiles, readVerified, writeAtomically } from './files.ts';
import { ChunkGraph } from './hnsw.ts';
import { addFromDatabase, reconcile, vectorSeqs } from './reconcile.ts';

/** A graph is saved this long after its last change… */
export const ANN_SAVE_DELAY_MS = 2000;
/** …and at least this often while changes keep coming. */
export const ANN_SAVE_MAX_DELAY_MS = 30_000;
/** Rebuilt from the database (at a save) once more keys were removed since its build than this share of its size (and ANN_COMPACT_MIN). */
export const ANN_COMPACT_SHARE = 0.25;
export const ANN_COMPACT_MIN = 1000;

interface Entry {
  readonly tenantId: string;
  readonly model: string;
  readonly files: IndexFiles | null;
  graph: ChunkGraph;
  /** Every change and save runs in this chain, in the order asked. */
  chain: Promise<unknown>;
  /** Settles once the graph was loaded or built and reconciled. */
  ready: Promise<void>;
  dirty: boolean;
  firstDirtyAt: number;
  timer: NodeJS.Timeout | null;
}

/** The graphs of one embedded database, opened on first use, saved in its data folder (none for `memory://`). */
class Registry {
  private readonly entries = new Map<string, Entry>();
  private readonly hnswDropped = new Set<string>();

  constructor(
    private readonly db: DatabaseExecutor,
    private readonly log: Logger | undefined,
  ) {
    db.onFlush?.(() => this.flush());
  }

  /** The graph of (tenant, model), loaded or built and reconciled with the database on first use. */
  open(tenantId: string, model: string, dimensions: number): Promise<ChunkGraph> {
    // Keyed by dimensions too: a query vector of the wrong size (a bad request) gets an empty graph of its own
    // instead of replacing the model's.
    const key = `${tenantId}\u0000${model}\u0000${dimensions}`;
    const known = this.entries.get(key);
    // Read the graph once ready: a compaction may have swapped it since.
    if (known) return known.ready.then(() => known.graph);
    const entry: Entry = {
      tenantId,
      model,
      files: this.db.dataDir ? indexFiles(this.db.dataDir, tenantId, model) : null,
      graph: new ChunkGraph(dimensions),
      chain: Promise.resolve(),
      ready: Promise.resolve(),
      dirty: false,
      firstDirtyAt: 0,
      timer: null,
    };
    entry.ready = this.run(entry, () => this.load(entry)).catch((err: unknown) => {
      // Not kept: the next use loads it again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw err;
    });
    this.entries.set(key, entry);
    return entry.ready.then(() => entry.graph);
  }

  /** The open graphs of a tenant (a removal applies to each of its models). */
  private ofTenant(tenantId: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.tenantId === tenantId);
  }

  async add(tenantId: string, model: string, seqs: readonly number[], vectors: readonly Float32Array[]): Promise<void> {
    const dims = vectors[0]?.length;
    if (!dims || seqs.length === 0) return;
    await this.open(tenantId, model, dims);
    const entry = this.entries.get(`${tenantId}\u0000${model}\u0000${dims}`);
    if (entry) await this.change(entry, () => entry.graph.add(seqs, vectors));
  }

  async remove(tenantId: string, seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    await Promise.all(this.ofTenant(tenantId).map((e) => this.change(e, () => e.graph.remove(seqs))));
  }

  private run<T>(entry: Entry, fn: () => Promise<T> | T): Promise<T> {
    const next = entry.chain.then(fn);
    entry.chain = next.catch(() => undefined);
    return next;
  }

  private async change(entry: Entry, fn: () => unknown): Promise<void> {
    await entry.ready;
    await this.run(entry, fn);
    this.markDirty(entry);
  }

  private async load(entry: Entry): Promise<void> {
    const { tenantId, model } = entry;
    const dimensions = entry.graph.dimensions;
    let loaded = false;
    if (entry.files) {
      const saved = await readVerified(entry.files, { tenantId, model, dimensions });
      if (saved.ok) loaded = entry.graph.load(entry.files.index, saved.keys);
      else if (saved.reason !== 'no saved index') this.log?.warn({ tenantId, model, reason: saved.reason }, 'vector index file not usable: rebuilding it from the database');
    }
    const started = Date.now();
    const { added, removed } = await reconcile(this.db, entry.graph, tenantId, model);
    if (added || removed || (!loaded && entry.graph.size > 0)) {
      this.log?.info({ tenantId, model, loaded, added, removed, size: entry.graph.size, ms: Date.now() - started }, 'vector index reconciled with the database');
      this.markDirty(entry);
    }
    await this.dropPgvectorIndex(model);
  }

  /** pgvector's HNSW index of the model, kept up to date on every insert at ~3 ms a vector in PGlite, serves nothing once the graph does. */
  private async dropPgvectorIndex(model: string): Promise<void> {
    if (this.hnswDropped.has(model)) return;
    this.hnswDropped.add(model);
    const name = indexName(model);
    const r = await this.db.query('SELECT 1 FROM pg_class WHERE relname = $1 AND relkind = $2', [name, 'i']);
    if (r.rows.length === 0) return;
    await this.db.exec(`DROP INDEX IF EXISTS ${name}`);
    this.log?.info({ model, index: name }, 'dropped the pgvector HNSW index: the embedded vector index (usearch) serves this model');
  }

  private markDirty(entry: Entry): void {
    if (!entry.files) return;
    const now = Date.now();
    if (!entry.dirty) entry.firstDirtyAt = now;
    entry.dirty = true;
    if (entry.timer) clearTimeout(entry.timer);
    const wait = Math.max(0, Math.min(ANN_SAVE_DELAY_MS, entry.firstDirtyAt + ANN_SAVE_MAX_DELAY_MS - now));
    entry.timer = setTimeout(() => {
      entry.timer = null;
      this.save(entry).catch((err: unknown) => this.log?.warn({ err, tenantId: entry.tenantId, model: entry.model }, 'saving the vector index failed'));
    }, wait);
    entry.timer.unref();
  }

  private save(entry: Entry): Promise<void> {
    return this.run(entry, async () => {
      if (!entry.dirty || !entry.files) return;
      entry.dirty = false;
      const g = entry.graph;
      if (g.removedSinceBuild > Math.max(ANN_COMPACT_MIN, g.size * ANN_COMPACT_SHARE)) await this.compact(entry);
      const meta = { tenantId: entry.tenantId, model: entry.model, dimensions: entry.graph.dimensions };
      await writeAtomically(entry.files, meta, (f) => entry.graph.save(f), entry.graph.keys());
    });
  }

  /** Builds a fresh graph from the database (removed keys take memory and walk steps until then) and swaps it in. */
  private async compact(entry: Entry): Promise<void> {
    const fresh = new ChunkGraph(entry.graph.dimensions);
    const seqs = await vectorSeqs(this.db, entry.tenantId, entry.model, fresh.dimensions);
    await addFromDatabase(this.db, fresh, entry.tenantId, entry.model, seqs);
    fresh.removedSinceBuild = 0;
    this.log?.info({ tenantId: entry.tenantId, model: entry.model, removed: entry.graph.removedSinceBuild, size: fresh.size }, 'vector index compacted');
    entry.graph = fresh;
  }

  /** Drops the tenant's open graphs after a failed update: the next use loads and reconciles them again. */
  forget(tenantId: string): void {
    for (const [key, e] of this.entries) {
      if (e.tenantId !== tenantId) continue;
      if (e.timer) clearTimeout(e.timer);
      this.entries.delete(key);
    }
  }

  /** Saves every changed graph now (clean shutdown, backup). */
  async flush(): Promise<void> {
    for (const entry of this.entries.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = null;
      await entry.ready.catch(() => undefined);
      await this.save(entry);
    }
  }
}

const registries = new WeakMap<DatabaseExecutor, Registry>();

/** The vector-index registry of an embedded database (one per executor, so per data folder and process). */
export function registryOf(db: DatabaseExecutor, log?: Logger): Registry {
  let r = registries.get(db);
  if (!r) {
    r = new Registry(db, log);
    registries.set(db, r);
  }
  return r;
}

export type { Registry };
