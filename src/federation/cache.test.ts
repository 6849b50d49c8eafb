import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTtlCache } from './cache.ts';

describe('TTL cache', () => {
  it('expires entries after the TTL', () => {
    const c = createTtlCache<number>(1000);
    c.set('a', 1, 0);
    assert.equal(c.get('a', 999), 1);
    assert.equal(c.get('a', 1000), undefined);
    assert.equal(c.size, 0);
  });
  it('evicts the least recently used entry past the size bound', () => {
    const c = createTtlCache<number>(1000, 2);
    c.set('a', 1, 0);
    c.set('b', 2, 0);
    c.get('a', 1);
    c.set('c', 3, 2);
    assert.equal(c.get('b', 3), undefined);
    assert.equal(c.get('a', 3), 1);
    assert.equal(c.get('c', 3), 3);
  });
  it('stores nothing with a TTL of 0', () => {
    const c = createTtlCache<number>(0);
    c.set('a', 1, 0);
    assert.equal(c.get('a', 0), undefined);
  });
});
