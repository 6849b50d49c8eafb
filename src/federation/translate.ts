import { applyTranslation, type TranslationRegistry } from '../translations/index.ts';

/** A registered embedding translation, as the federated query uses it. */
export interface Translation {
  readonly id: string;
  /** 0..1, reported per item as `federation_confidence`. */
  readonly confidence: number;
  apply(vector: Float32Array): Float32Array;
}

/** Port onto the translations service (src/translations): the tenant's translation between two models, or null. */
export interface Translator {
  find(tenantId: string, sourceModel: string, targetModel: string): Promise<Translation | null>;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** The translations service (src/translations) as a `Translator`. */
export function translatorFrom(registry: Pick<TranslationRegistry, 'findTranslation'>): Translator {
  return {
    async find(tenantId, sourceModel, targetModel) {
      const t = await registry.findTranslation(tenantId, sourceModel, targetModel);
      return t ? { id: t.id, confidence: t.confidence, apply: (v) => applyTranslation(t, v) } : null;
    },
  };
}
