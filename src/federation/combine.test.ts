import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { criticalTerm, intentFit, itemFeatures, matchScore, temporalWeight, translatedMatch } from './combine.ts';
import { combineTerms, RANK_STAGES, rankingFormula } from './rank.ts';
import type { IntentSignal } from './intent.ts';

const flat: IntentSignal = { urgency: 0.5, emotional_weight: 0.5, action_likelihood: 0.5, social_dimension: 0.5, context_sensitivity: 0.5 };
const base = { title: 'Billing', content: 'invoice flow', document_type: 'page', author: null, metadata: {}, days: 40, is_critical: false };

describe('score combination', () => {
  it('mixes semantic and lexical, lexical alone without a vector', () => {
    assert.equal(matchScore(null, 0.4), 0.4);
    assert.ok(Math.abs(matchScore(1, 0) - 0.65) < 1e-12);
    assert.equal(matchScore(1, 1), 1);
  });

  it('blends a translated match by its confidence between the full match and lexical alone', () => {
    const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
    close(translatedMatch(0.9, 1, 0.5), matchScore(0.9, 0.5));
    close(translatedMatch(0.9, 0, 0.5), 0.5);
    close(translatedMatch(null, 0.7, 0.5), 0.5);
    close(translatedMatch(0.9, 0.5, 0.5), 0.5 * matchScore(0.9, 0.5) + 0.25);
    // The defect it replaces: a 0.1-confidence translation of a good match scored 0.65·0.8·0.1 + 0.35·0.8 = 0.332,
    // far below the 0.8 of the same document with no translation at all.
    for (const c of [0.1, 0.36, 0.5, 0.9]) {
      assert.ok(translatedMatch(0.8, c, 0.8) >= translatedMatch(null, 0, 0.8), `confidence ${c}, equal evidence`);
      assert.ok(translatedMatch(0.95, c, 0.6) > translatedMatch(null, 0, 0.6), `confidence ${c}, a better semantic match lifts`);
      assert.ok(translatedMatch(0.1, c, 0.6) < translatedMatch(null, 0, 0.6), `confidence ${c}, a worse one lowers`);
      assert.ok(translatedMatch(0.95, c + 0.05, 0.6) > translatedMatch(0.95, c, 0.6), 'more confidence, more weight');
    }
  });

  it('applies the full decay for urgent queries and half of it otherwise', () => {
    assert.ok(Math.abs(temporalWeight(10, 0.05, 1) - Math.exp(-0.5)) < 1e-12);
    assert.ok(Math.abs(temporalWeight(10, 0.05, 0) - (0.5 + 0.5 * Math.exp(-0.5))) < 1e-12);
    assert.equal(temporalWeight(0, 0.05, 0.3), 1);
  });

  it('keeps relevance within 0..1 and ordered by each component', () => {
    // The pipeline's terms in order: match, temporal, intent_fit, critical.
    const relevance = (...terms: number[]) => combineTerms(RANK_STAGES, terms);
    assert.deepEqual(RANK_STAGES.map((s) => s.name), ['match', 'temporal', 'intent_fit', 'critical']);
    assert.equal(relevance(1, 1, 1, 1), 1);
    assert.equal(relevance(0, 1, 1, 1), 0);
    assert.ok(relevance(0.8, 1, 0, 0) > relevance(0.8, 0.5, 0, 0));
    assert.ok(relevance(0.8, 1, 1, 0) > relevance(0.8, 1, 0, 0));
    assert.ok(relevance(0.8, 1, 0, criticalTerm(true, 1)) > relevance(0.8, 1, 0, criticalTerm(true, 0)));
    assert.equal(relevance(0.8, 0.5, 0.4, 0.6), 0.8 * 0.5 * (0.75 + 0.15 * 0.4 + 0.1 * 0.6));
    assert.equal(criticalTerm(false, 1), 0);
  });

  it('writes the formula users see from the stages', () => {
    assert.equal(
      rankingFormula(RANK_STAGES),
      'relevance = match · temporal · (0.75 + 0.15·intent_fit + 0.10·critical); match = c·(0.65·semantic + 0.35·lexical) + (1−c)·lexical, c = federation_confidence; temporal = (1−μ) + μ·exp(−λ·days), μ = 0.5 + 0.5·urgency',
    );
  });

  it('derives intent features from type, language, recency and the user context', () => {
    const f = itemFeatures({ ...base, document_type: 'issue', author: 'Alice', days: 2 }, 'alice', new Set(), ['billing']);
    assert.deepEqual(f, { urgency: true, emotional_weight: false, action_likelihood: true, social_dimension: false, context_sensitivity: true });
    const g = itemFeatures({ ...base, document_type: 'message', content: 'customers are frustrated' }, 'bob', new Set(['invoice']), ['invoice']);
    assert.deepEqual(g, { urgency: false, emotional_weight: true, action_likelihood: false, social_dimension: true, context_sensitivity: true });
  });

  it('weights features by the intent', () => {
    const f = { urgency: true, emotional_weight: false, action_likelihood: false, social_dimension: false, context_sensitivity: false };
    assert.equal(intentFit(flat, f), 0.2);
    assert.equal(intentFit({ ...flat, urgency: 1, emotional_weight: 0, action_likelihood: 0, social_dimension: 0, context_sensitivity: 0 }, f), 1);
    assert.equal(intentFit({ urgency: 0, emotional_weight: 0, action_likelihood: 0, social_dimension: 0, context_sensitivity: 0 }, f), 0);
  });
});
