import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonlDocument } from './jsonl.ts';

const refused = (value: unknown) => {
  const r = jsonlDocument(value);
  assert.equal(r.ok, false, JSON.stringify(value));
  return r.ok ? '' : r.message;
};

describe('a JSONL line of a document', () => {
  it('takes BEIR names, string or numeric ids, and optional push API fields', () => {
    assert.deepEqual(jsonlDocument({ _id: 'd1', title: 'T', text: 'body', metadata: {} }), {
      ok: true,
      document: { external_id: 'd1', title: 'T', content: 'body', metadata: {} },
    });
    const r = jsonlDocument({ id: 5, content: 'numeric id mink', updated_at: '2026-01-01T00:00:00Z' });
    assert.ok(r.ok);
    assert.equal(r.document.external_id, '5');
    assert.equal(r.document.title, '', 'a missing title is empty');
  });

  it('refuses an id that is neither a string nor a number, instead of storing "[object Object]"', () => {
    assert.match(refused({ id: { a: 1 }, title: 'obj', content: 'c' }), /^id: expected a string or a number$/);
    assert.match(refused({ _id: true, title: 't', content: 'c' }), /^_id: expected a string or a number$/);
    assert.match(refused({ title: 'No id', content: 'c' }), /no external_id/);
  });

  it('refuses unknown fields (a misspelt updated_at) as the push API does', () => {
    assert.equal(refused({ id: 'x', title: 't', content: 'c', update_at: 'oops' }), "unknown field 'update_at'");
    assert.equal(refused({ id: 'x', body: 'b', tags: [] }), "unknown fields 'body', 'tags'");
  });

  it('refuses what is not an object, wrong types, and NUL characters, naming the field', () => {
    for (const v of [[1, 2], null, 'str', 3]) assert.equal(refused(v), 'not a JSON object');
    assert.match(refused({ id: 'x', title: 5, content: 'c' }), /^title: /);
    assert.match(refused({ id: 'x', title: 't', text: 'a\u0000b' }), /^text: contains a NUL character/);
    assert.match(refused({ id: 'x', title: 't', content: 'c', metadata: { k: ['ok', 'n\u0000'] } }), /^metadata: contains a NUL character/);
  });
});
