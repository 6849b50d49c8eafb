import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from './canonical.ts';
import { federatedRequestSchema, normalizeRequest, queryHash } from './request.ts';

const parse = (v: unknown) => federatedRequestSchema.safeParse(v);

describe('federated request', () => {
  it('canonical JSON sorts keys at every depth and drops undefined', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined, x: 0 }], c: null } }), '{"a":{"c":null,"d":[2,{"x":0,"z":1}]},"b":1}');
  });

  it('gives equal hashes for equal requests, whatever the field order, aliases or whitespace', () => {
    const a = normalizeRequest(parse({ query: 'deploy  status', user_id: 'u1', node_ids: ['b', 'a'], max_results: 5 }).data!);
    const b = normalizeRequest(parse({ max_results: 5, sources: ['a', 'b', 'a'], user_id: 'u1', query: ' deploy status ' }).data!);
    const c = normalizeRequest(parse({ query: 'deploy status', user_id: 'u1', node_ids: ['a', 'b'], limit: 5 }).data!);
    assert.match(queryHash(a), /^sha256:[0-9a-f]{64}$/);
    assert.equal(queryHash(a), queryHash(b));
    assert.equal(queryHash(a), queryHash(c));
    const d = normalizeRequest(parse({ query: 'deploy status', user_id: 'u2', node_ids: ['a', 'b'], limit: 5 }).data!);
    assert.notEqual(queryHash(a), queryHash(d));
    const e = normalizeRequest(parse({ query: 'deploy status', user_id: 'u1', node_ids: ['a', 'b'], limit: 5, intent_signal: { urgency: 1 } }).data!);
    assert.notEqual(queryHash(a), queryHash(e));
  });

  it('resolves aliases and defaults', () => {
    const q = normalizeRequest(
      parse({
        query: 'x',
        user_id: 'u',
        includeReasoning: true,
        filters: { dateRange: { after: '2026-01-01T00:00:00Z' }, types: ['issue'], document_type: 'task', connector_type: 'github', authors: ['b', 'a'] },
      }).data!,
    );
    assert.equal(q.max_results, 10);
    assert.equal(q.node_ids, null);
    assert.equal(q.include_reasoning, true);
    assert.deepEqual(q.filters, {
      after: '2026-01-01T00:00:00.000Z',
      authors: ['a', 'b'],
      document_types: ['issue', 'task'],
      connector_types: ['github'],
    });
  });

  it('rejects invalid requests with a path', () => {
    const cases: [unknown, string][] = [
      [{ user_id: 'u' }, 'query'],
      [{ query: '   ', user_id: 'u' }, 'query'],
      [{ query: 'x' }, 'user_id'],
      [{ query: 'x', user_id: 'u', max_results: 0 }, 'max_results'],
      [{ query: 'x', user_id: 'u', max_results: 101 }, 'max_results'],
      [{ query: 'x', user_id: 'u', max_results: 2.5 }, 'max_results'],
      [{ query: 'x', user_id: 'u', intent_signal: { urgency: 1.5 } }, 'intent_signal.urgency'],
      [{ query: 'x', user_id: 'u', intent_signal: { urgency: -0.1 } }, 'intent_signal.urgency'],
      [{ query: 'x', user_id: 'u', intent_signal: { mood: 0.5 } }, 'intent_signal'],
      [{ query: 'x', user_id: 'u', max_results: 3, limit: 4 }, 'limit'],
      [{ query: 'x', user_id: 'u', node_ids: ['a'], sources: ['b'] }, 'sources'],
      [{ query: 'x', user_id: 'u', filters: { date_range: { after: 'yesterday' } } }, 'filters.date_range.after'],
      [{ query: 'x', user_id: 'u', filters: { date_range: { after: '2026-02-01T00:00:00Z', before: '2026-01-01T00:00:00Z' } } }, 'filters.date_range'],
      [{ query: 'x', user_id: 'u', unknown_field: 1 }, ''],
    ];
    for (const [body, path] of cases) {
      const r = parse(body);
      assert.equal(r.success, false, JSON.stringify(body));
      const paths = r.error!.issues.map((i) => i.path.join('.'));
      assert.ok(paths.some((p) => p === path || (path === '' && p === '')), `${JSON.stringify(body)} → ${paths.join(',')}`);
    }
  });

  it('accepts a partial intent signal at the bounds', () => {
    assert.equal(parse({ query: 'x', user_id: 'u', intent_signal: { urgency: 0, social_dimension: 1 } }).success, true);
  });
});
