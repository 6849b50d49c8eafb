import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tombstoneMatcher } from './tombstone.ts';

describe('tombstones', () => {
  const match = tombstoneMatcher([
    { id: 't1', document_id: 'doc_a', connector_id: 'api-1', external_id: 'a' },
    { id: 't2', document_id: null, connector_id: 'api-1', external_id: 'b' },
    { id: 't3', document_id: null, connector_id: 'slack-9', external_id: null },
  ]);
  it('matches by document id, by connector + external id, and whole connectors', () => {
    assert.equal(match({ document_id: 'doc_a', source_node: 'x', external_id: 'zz' }), 't1');
    assert.equal(match({ document_id: 'doc_new', source_node: 'api-1', external_id: 'b' }), 't2');
    assert.equal(match({ document_id: 'doc_q', source_node: 'slack-9', external_id: 'anything' }), 't3');
  });
  it('leaves everything else live', () => {
    assert.equal(match({ document_id: 'doc_c', source_node: 'api-1', external_id: 'c' }), null);
    assert.equal(match({ document_id: 'doc_d', source_node: 'api-2', external_id: 'b' }), null);
  });
});
