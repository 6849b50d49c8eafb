import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planDamping } from './damping.ts';
import { inferIntent } from './intent.ts';
import { type LocalCandidate, type PassageFields, type RankContext, rankLocal } from './rank.ts';
import { surfaceItems } from './surface.ts';
import { tombstoneMatcher } from './tombstone.ts';

const now = new Date('2026-06-01T00:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString();

function passage(id: string, over: Partial<PassageFields> = {}): PassageFields {
  return {
    chunk_id: `chk_${id}`,
    content: `content of ${id}`,
    document_id: `doc_${id}`,
    source_node: 'api-1',
    connector_type: 'api',
    external_id: id,
    title: `Title ${id}`,
    url: null,
    author: null,
    document_type: 'page',
    created_at: daysAgo(1),
    updated_at: daysAgo(1),
    ingested_at: daysAgo(1),
    metadata: {},
    lexical_score: 1,
    embedding_model: null,
    ...over,
  };
}
const cand = (p: PassageFields, semantic: number | null = null, confidence = 1): LocalCandidate => ({
  passage: p,
  semantic,
  federation_confidence: confidence,
  translation: { applied: false, from: null, to: null, translation_id: null },
});
const ctx = (over: Partial<RankContext> = {}): RankContext => ({
  now,
  intent: inferIntent('billing'),
  lambda: 0.05,
  userId: 'u1',
  contextTerms: new Set(),
  tombstoneOf: () => null,
  includeReasoning: false,
  ...over,
});

describe('ranking pipeline', () => {
  it('re-ranks the same (cached) candidate with the current query urgency and user context', () => {
    // The same candidate objects, as a cached fan-out hands them to every hit.
    const c = cand(passage('a', { content: 'the payment service went down for an hour' }));
    const calm = rankLocal([c], ctx({ intent: { ...inferIntent('billing'), urgency: 0.2 } }))[0]!;
    const urgent = rankLocal([c], ctx({ intent: { ...inferIntent('billing'), urgency: 0.9 } }))[0]!;
    assert.equal(calm.is_critical, false, 'body language counts only for urgent queries');
    assert.equal(urgent.is_critical, true);
    assert.equal(rankLocal([c], ctx({ intent: { ...inferIntent('billing'), urgency: 0.2 } }))[0]!.is_critical, false);
    const plain = rankLocal([c], ctx({ includeReasoning: true }))[0]!;
    const inContext = rankLocal([c], ctx({ includeReasoning: true, contextTerms: new Set(['payment']) }))[0]!;
    const contextual = (i: typeof plain) => (i.reasoning?.intent_features as { context_sensitivity?: boolean } | undefined)?.context_sensitivity;
    assert.equal(contextual(plain), false);
    assert.equal(contextual(inContext), true);
  });

  it('keeps one item per document, its best passage, with every spec field', () => {
    const items = rankLocal(
      [cand(passage('a', { chunk_id: 'c1', lexical_score: 2, content: 'best' })), cand(passage('a', { chunk_id: 'c2', lexical_score: 1 }))],
      ctx({ includeReasoning: true }),
    );
    assert.equal(items.length, 1);
    const i = items[0]!;
    assert.equal(i.id, 'doc_a');
    assert.equal(i.content, 'best');
    assert.equal(i.temporal_status, 'recent');
    assert.equal(i.federation_confidence, 1);
    assert.equal(i.semantic_similarity, 0);
    assert.equal(i.suppressed_by_tombstone, false);
    assert.equal(i.metadata.title, 'Title a');
    assert.equal(i.metadata.timestamp, daysAgo(1));
    assert.ok(i.relevance_score > 0 && i.relevance_score <= 1);
    assert.ok(i.reasoning);
  });

  it('ranks recent above old for equal matches, more strongly for urgent queries', () => {
    const c = [cand(passage('new', { updated_at: daysAgo(1) })), cand(passage('old', { updated_at: daysAgo(60) }))];
    const calm = rankLocal(c, ctx({ intent: { ...inferIntent('x'), urgency: 0 } }));
    const urgent = rankLocal(c, ctx({ intent: { ...inferIntent('x'), urgency: 1 } }));
    const gap = (items: typeof calm) => items.find((i) => i.id === 'doc_new')!.relevance_score - items.find((i) => i.id === 'doc_old')!.relevance_score;
    assert.ok(gap(calm) > 0);
    assert.ok(gap(urgent) > gap(calm));
    assert.equal(calm.find((i) => i.id === 'doc_old')!.temporal_status, 'historical');
  });

  it('dates a document its source gave no timestamp by when it was ingested', () => {
    const undated = (ingested: string) => cand(passage('undated', { created_at: null, updated_at: null, ingested_at: ingested }));
    const fresh = rankLocal([undated(daysAgo(2))], ctx())[0]!;
    assert.equal(fresh.temporal_status, 'recent');
    assert.equal(fresh.metadata.timestamp, daysAgo(2));
    assert.equal(rankLocal([undated(daysAgo(45))], ctx())[0]!.temporal_status, 'historical');
    const dated = rankLocal([cand(passage('dated', { updated_at: daysAgo(10), ingested_at: daysAgo(1) }))], ctx())[0]!;
    assert.equal(dated.temporal_status, 'stale', "the source's own timestamp wins over ingestion time");
  });

  it('uses translation confidence to weigh the semantic score', () => {
    const [same] = rankLocal([cand(passage('a', { lexical_score: 0 }), 0.9, 1)], ctx());
    const [translated] = rankLocal([cand(passage('a', { lexical_score: 0 }), 0.9, 0.5)], ctx());
    assert.equal(translated!.federation_confidence, 0.5);
    assert.ok(translated!.relevance_score < same!.relevance_score);
  });

  it('flags tombstoned items and surfaces them below live ones', () => {
    const tomb = tombstoneMatcher([{ id: 't1', document_id: 'doc_top', connector_id: null, external_id: null }]);
    const items = rankLocal([cand(passage('top', { lexical_score: 10 })), cand(passage('low', { lexical_score: 5 }))], ctx({ tombstoneOf: tomb }));
    const out = surfaceItems(items, 'very_low', planDamping(0, 10));
    assert.deepEqual(
      out.map((i) => [i.id, i.suppressed_by_tombstone]),
      [
        ['doc_low', false],
        ['doc_top', true],
      ],
    );
  });

  it('keeps tombstoned items a place (one in five, at least one) when live items fill the list', () => {
    const tomb = tombstoneMatcher(['t0', 't1', 't2'].map((d, i) => ({ id: `tomb${i}`, document_id: `doc_${d}`, connector_id: null, external_id: null })));
    const live = Array.from({ length: 12 }, (_, i) => cand(passage(`live${i}`, { lexical_score: 5 - i * 0.1 })));
    const dead = ['t0', 't1', 't2'].map((d, i) => cand(passage(d, { lexical_score: 20 - i })));
    const items = rankLocal([...live, ...dead], ctx({ tombstoneOf: tomb }));
    const out = surfaceItems(items, 'very_low', planDamping(0, 10));
    assert.equal(out.length, 10);
    assert.deepEqual(
      out.map((i) => i.suppressed_by_tombstone),
      [...new Array(8).fill(false), true, true],
      'live first, then the two reserved places',
    );
    assert.deepEqual(out.slice(8).map((i) => i.id), ['doc_t0', 'doc_t1'], 'the best-matching tombstoned items');
    const one = surfaceItems(rankLocal([...live, dead[1]!], ctx({ tombstoneOf: tomb })), 'very_low', planDamping(0, 3));
    assert.deepEqual(
      one.map((i) => i.id),
      ['doc_live0', 'doc_live1', 'doc_t1'],
      'at least one place in a short list',
    );
    const fewLive = surfaceItems(rankLocal([live[0]!, ...dead], ctx({ tombstoneOf: tomb })), 'very_low', planDamping(0, 10));
    assert.equal(fewLive.length, 4, 'places live items do not need go to tombstoned ones');
    const single = surfaceItems(rankLocal([...live, ...dead], ctx({ tombstoneOf: tomb })), 'very_low', planDamping(0, 1));
    assert.deepEqual(single.map((i) => i.id), ['doc_live0'], 'a one-item answer keeps the best live item');
    const onlyDead = surfaceItems(rankLocal([...dead], ctx({ tombstoneOf: tomb })), 'very_low', planDamping(0, 1));
    assert.deepEqual(onlyDead.map((i) => i.id), ['doc_t0'], 'and a tombstoned one when nothing live matches');
  });

  it('puts critical items first and cuts the list under damping; critical level keeps only critical items', () => {
    const items = rankLocal(
      [
        cand(passage('a', { lexical_score: 10 })),
        cand(passage('b', { lexical_score: 9 })),
        cand(passage('c', { lexical_score: 2, title: 'Checkout outage' })),
        cand(passage('d', { lexical_score: 8 })),
      ],
      ctx(),
    );
    const normal = surfaceItems(items, 'normal', planDamping(1, 10));
    assert.equal(normal[0]!.id, 'doc_a');
    const damped = surfaceItems(items, 'high', planDamping(2.5, 3));
    assert.equal(damped.length, 3);
    assert.equal(damped[0]!.id, 'doc_c');
    const crit = surfaceItems(items, 'critical', planDamping(3.5, 10));
    assert.deepEqual(
      crit.map((i) => i.id),
      ['doc_c'],
    );
  });

  it('drops items under the level floor', () => {
    const items = rankLocal([cand(passage('a', { lexical_score: 100 })), cand(passage('weak', { lexical_score: 1 }))], ctx());
    assert.equal(surfaceItems(items, 'very_low', planDamping(0, 10)).length, 2);
    assert.deepEqual(
      surfaceItems(items, 'high', planDamping(2.5, 10, 3)).map((i) => i.id),
      ['doc_a'],
    );
  });
});
