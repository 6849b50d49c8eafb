import { AppError, Errors } from '../platform/errors.ts';
import { applyTranslation, type TranslationRegistry } from './registry.ts';

export interface TranslateInput {
  readonly vector: readonly number[];
  readonly source_model: string;
  readonly target_model: string;
}

export interface TranslateOutput {
  readonly vector: number[];
  readonly source_model: string;
  readonly target_model: string;
  readonly confidence: number;
  readonly translation_applied: boolean;
  readonly translation_id: string;
}

/** The translation id reported when source and target are the same model. */
export const IDENTITY_ID = 'identity';

export async function resolveKnownModel(registry: TranslationRegistry, tenantId: string, name: string): Promise<{ id: string; dims: number }> {
  const id = await registry.resolveModel(tenantId, name);
  const dims = id === null ? undefined : (await registry.models(tenantId)).get(id);
  if (id === null || dims === undefined) {
    throw new AppError('not_found', 404, `unknown embedding model '${name}': GET /v1/vec2vec/registry lists the models with translations`, {
      details: { kind: 'embedding model', id: name },
    });
  }
  return { id, dims };
}

/** Validates and translates one vector; same model → the vector unchanged with confidence 1. */
export async function translateOne(registry: TranslationRegistry, tenantId: string, input: TranslateInput): Promise<TranslateOutput> {
  const bad = input.vector.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) throw Errors.validation(`vector[${bad}] is not a finite number`, [{ path: `vector.${bad}`, message: 'must be finite' }]);
  const source = await resolveKnownModel(registry, tenantId, input.source_model);
  const target = await resolveKnownModel(registry, tenantId, input.target_model);
  if (input.vector.length !== source.dims) {
    throw Errors.validation(`vector has ${input.vector.length} dimensions but '${source.id}' vectors have ${source.dims}`, [
      { path: 'vector', message: `expected ${source.dims} numbers` },
    ]);
  }
  if (source.id === target.id) {
    return { vector: [...input.vector], source_model: source.id, target_model: target.id, confidence: 1, translation_applied: false, translation_id: IDENTITY_ID };
  }
  const t = await registry.findTranslation(tenantId, source.id, target.id);
  if (!t) {
    throw new AppError('not_found', 404, `no translation from '${source.id}' to '${target.id}': train one with POST /v1/vec2vec/train`, {
      details: { kind: 'translation', source_model: source.id, target_model: target.id },
    });
  }
  const translated = Array.from(applyTranslation(t, input.vector));
  // The maps compute in 32-bit floats: a finite component past their range (1e200) overflows to NaN. A client's
  // input, not a server fault.
  if (!translated.every(Number.isFinite)) {
    throw Errors.validation('vector is too large to translate: its components overflow 32-bit floats; send the vector as the model produced it (normalized)', [
      { path: 'vector', message: 'components too large' },
    ]);
  }
  return {
    vector: translated,
    source_model: source.id,
    target_model: target.id,
    confidence: t.confidence,
    translation_applied: true,
    translation_id: t.id,
  };
}
