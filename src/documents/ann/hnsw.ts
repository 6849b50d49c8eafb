import usearch from 'usearch';

const { Index, MetricKind, ScalarKind } = usearch;
type UsearchIndex = InstanceType<typeof Index>;

/**
 * Search breadth of the graph walk (usearch's `expansion_search`; it widens to k by itself when asked for more).
 * Measured on the peers corpus's 20k GloVe vectors, 200 queries (scripts/ann-probe.ts, docs/benchmarks.md issue 29):
 * recall@30 against an exact scan 0.860 at 64 (usearch's default), 0.941 at 128, 0.979 at 256, for 0.20 / 0.30 /
 * 0.45 ms of CPU per search; pgvector's HNSW it replaces had 0.965.
 */
export const ANN_EXPANSION_SEARCH = 256;

/**
 * One HNSW graph (usearch, in C++) over the chunk vectors of one (tenant, model), keyed by chunk `seq`, cosine metric.
 * It keeps the set of its keys beside it (usearch lists none), so a reload can be reconciled with the database.
 */
export class ChunkGraph {
  private index: UsearchIndex;
  private readonly keySet = new Set<number>();
  /** Keys removed since the graph was built: usearch marks them deleted, they still take memory and walk steps. */
  removedSinceBuild = 0;

  constructor(
    readonly dimensions: number,
    private readonly expansionSearch = ANN_EXPANSION_SEARCH,
  ) {
    this.index = ChunkGraph.empty(dimensions, expansionSearch);
  }

  private static empty(dimensions: number, expansionSearch: number): UsearchIndex {
    return new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: 0,
      expansion_add: 0,
      expansion_search: expansionSearch,
      multi: false,
    });
  }

  get size(): number {
    return this.keySet.size;
  }

  has(seq: number): boolean {
    return this.keySet.has(seq);
  }

  keys(): BigInt64Array {
    return BigInt64Array.from(this.keySet, (k) => BigInt(k));
  }

  /** Adds vectors under their keys; a key already present is replaced (a re-embedded chunk keeps its `seq`). */
  add(seqs: readonly number[], vectors: readonly Float32Array[]): void {
    const keys: bigint[] = [];
    const vecs: Float32Array[] = [];
    const replaced: bigint[] = [];
    const seen = new Set<number>();
    // The last vector of a key repeated in one call wins, as the database's last write does.
    for (let i = seqs.length - 1; i >= 0; i--) {
      const s = seqs[i];
      const v = vectors[i];
      if (s === undefined || !v || v.length !== this.dimensions || seen.has(s)) continue;
      seen.add(s);
      if (this.keySet.has(s)) replaced.push(BigInt(s));
      keys.push(BigInt(s));
      vecs.push(v);
    }
    if (replaced.length) this.removeKeys(replaced);
    if (keys.length === 0) return;
    this.index.add(keys, vecs.length === 1 ? (vecs[0] as Float32Array) : vecs, 0);
    for (const k of seen) this.keySet.add(k);
  }

  /** Removes keys (absent ones are ignored); answers how many were present. */
  remove(seqs: readonly number[]): number {
    const present = seqs.filter((s) => this.keySet.has(s));
    if (present.length === 0) return 0;
    this.removeKeys(present.map((s) => BigInt(s)));
    for (const s of present) this.keySet.delete(s);
    return present.length;
  }

  private removeKeys(keys: bigint[]): void {
    this.index.remove(keys);
    this.removedSinceBuild += keys.length;
  }

  /** The `k` nearest keys to `vector`, nearest first. */
  search(vector: Float32Array, k: number): number[] {
    if (this.keySet.size === 0 || k <= 0) return [];
    const m = this.index.search(vector, Math.min(k, this.keySet.size), 0);
    const out: number[] = [];
    // usearch pads a short answer with the "no key" value (2^64 - 1).
    for (const key of m.keys) if (key < 0xffffffffffffffffn) out.push(Number(key));
    return out;
  }

  save(file: string): void {
    this.index.save(file);
  }

  /** Loads a verified file (files.ts) with its key list; false when its dimensions are not this graph's. */
  load(file: string, keys: BigInt64Array): boolean {
    const index = ChunkGraph.empty(this.dimensions, this.expansionSearch);
    index.load(file);
    if (index.dimensions() !== this.dimensions || index.size() !== keys.length) return false;
    this.index = index;
    this.keySet.clear();
    for (const k of keys) this.keySet.add(Number(k));
    this.removedSinceBuild = 0;
    return true;
  }
}
