import { type EmbeddingRegistry, resolveModelName } from '../embeddings/provider.ts';
import type { DatabaseExecutor, Queryable } from '../platform/db/index.ts';
import { decodeMap, type TranslationMap, translateVector } from '../vec2vec/index.ts';
import { BUILTIN_DIR, type BuiltinTranslation, loadBuiltinMap, readBuiltinManifest } from './builtin.ts';
import {
  deleteTenantTranslation,
  findTenantTranslation,
  getTenantTranslation,
  listTenantTranslations,
  loadParams,
  type TranslationRecord,
} from './store.ts';

/** A translation ready to apply: its registry entry and its map, loaded once and cached. */
export interface LoadedTranslation {
  readonly id: string;
  readonly sourceModel: string;
  readonly targetModel: string;
  /** Held-out confidence in 0..1 (see docs/vec2vec.md). */
  readonly confidence: number;
  readonly record: TranslationRecord;
  readonly map: TranslationMap;
}

/** The translations a tenant can use: shipped built-ins plus its own trained ones (which take precedence). */
export interface TranslationRegistry {
  list(tenantId: string): Promise<TranslationRecord[]>;
  /** The directional translation source → target, or null when none is registered. */
  findTranslation(tenantId: string, sourceModel: string, targetModel: string): Promise<LoadedTranslation | null>;
  get(tenantId: string, translationId: string): Promise<TranslationRecord | null>;
  /** `builtin` for a shipped translation, which cannot be deleted. */
  delete(tenantId: string, translationId: string): Promise<'deleted' | 'builtin' | 'not_found'>;
  /** Every model id the tenant can name, with its dimensions: embedding providers and translation endpoints. */
  models(tenantId: string): Promise<Map<string, number>>;
  /** Resolves a full id or a short name (`glove-100d` for `builtin/glove-100d`) to a known model id. */
  resolveModel(tenantId: string, name: string): Promise<string | null>;
}

export interface TranslationRegistryOptions {
  readonly db: Queryable;
  /** The embedding models (read at each call, since composition may add them after the registry exists). */
  readonly embeddings?: () => EmbeddingRegistry | undefined;
  /** Directory of shipped translations (manifest.json + *.bin); default `translations/` in the package. */
  readonly builtinDir?: string;
  /** Trained maps kept decoded in memory. */
  readonly cacheSize?: number;
}

export function createTranslationRegistry(opts: TranslationRegistryOptions): TranslationRegistry {
  const cacheSize = opts.cacheSize ?? 64;
  // Rows are immutable per id (retraining writes a new id), so caching by id never serves stale weights.
  const cache = new Map<string, TranslationMap>();
  const builtinMaps = new Map<string, Promise<TranslationMap>>();
  let builtins: Promise<BuiltinTranslation[]> | undefined;
  const getBuiltins = () => {
    builtins ??= readBuiltinManifest(opts.builtinDir ?? BUILTIN_DIR);
    return builtins;
  };

  async function loadTenantMap(tenantId: string, id: string): Promise<TranslationMap | null> {
    const key = `${tenantId}\u0000${id}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const bytes = await loadParams(opts.db, tenantId, id);
    if (!bytes) return null;
    const map = decodeMap(bytes);
    cache.set(key, map);
    while (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    return map;
  }

  function loadBuiltin(b: BuiltinTranslation): Promise<TranslationMap> {
    let p = builtinMaps.get(b.record.translation_id);
    if (!p) {
      p = loadBuiltinMap(b);
      p.catch(() => builtinMaps.delete(b.record.translation_id));
      builtinMaps.set(b.record.translation_id, p);
    }
    return p;
  }

  const registry: TranslationRegistry = {
    async list(tenantId) {
      const own = await listTenantTranslations(opts.db, tenantId);
      return [...(await getBuiltins()).map((b) => b.record), ...own];
    },

    async findTranslation(tenantId, sourceModel, targetModel) {
      const own = await findTenantTranslation(opts.db, tenantId, sourceModel, targetModel);
      if (own) {
        const map = await loadTenantMap(tenantId, own.translation_id);
        if (map) return loaded(own, map);
      }
      const b = (await getBuiltins()).find((x) => x.record.source_model === sourceModel && x.record.target_model === targetModel);
      return b ? loaded(b.record, await loadBuiltin(b)) : null;
    },

    async get(tenantId, translationId) {
      const b = (await getBuiltins()).find((x) => x.record.translation_id === translationId);
      return b ? b.record : getTenantTranslation(opts.db, tenantId, translationId);
    },

    async delete(tenantId, translationId) {
      if ((await getBuiltins()).some((x) => x.record.translation_id === translationId)) return 'builtin';
      return (await deleteTenantTranslation(opts.db, tenantId, translationId)) ? 'deleted' : 'not_found';
    },

    async models(tenantId) {
      const out = new Map<string, number>();
      for (const t of await registry.list(tenantId)) {
        out.set(t.source_model, t.source_dim);
        out.set(t.target_model, t.target_dim);
      }
      for (const p of opts.embeddings?.()?.list() ?? []) out.set(p.id, p.dimensions);
      return out;
    },

    async resolveModel(tenantId, name) {
      return resolveModelName(name, (await registry.models(tenantId)).keys());
    },
  };
  return registry;
}

function loaded(record: TranslationRecord, map: TranslationMap): LoadedTranslation {
  return { id: record.translation_id, sourceModel: record.source_model, targetModel: record.target_model, confidence: record.confidence, record, map };
}

/** Translates one vector with a loaded translation; the result is L2-normalized like stored embeddings. */
export function applyTranslation(t: LoadedTranslation, vector: ArrayLike<number>): Float32Array {
  return translateVector(t.map, vector);
}

const fallbackRegistries = new WeakMap<object, TranslationRegistry>();

/**
 * For other modules (the federated query): the source → target translation visible to the tenant.
 * Accepts the composed deps (uses `deps.translations`) or a bare database (built-ins + the tenant's rows).
 */
export async function findTranslation(
  from: { readonly translations?: TranslationRegistry; readonly db?: DatabaseExecutor } | Queryable,
  tenantId: string,
  sourceModel: string,
  targetModel: string,
): Promise<LoadedTranslation | null> {
  if ('translations' in from && from.translations) return from.translations.findTranslation(tenantId, sourceModel, targetModel);
  const db: Queryable | undefined = 'query' in from ? from : from.db;
  if (!db) return null;
  let reg = fallbackRegistries.get(db);
  if (!reg) {
    reg = createTranslationRegistry({ db });
    fallbackRegistries.set(db, reg);
  }
  return reg.findTranslation(tenantId, sourceModel, targetModel);
}
