import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileToDocument } from './map.ts';

describe('github file documents', () => {
  it('percent-encode each path segment of the URL (spaces, # and ? in names)', () => {
    const doc = fileToDocument({ repo: 'acme/api', branch: 'release/2.0', path: 'docs/Q&A #1?.md', content: '', sha: 's', isPrivate: false, webBase: 'https://github.com' });
    assert.equal(doc.url, 'https://github.com/acme/api/blob/release/2.0/docs/Q%26A%20%231%3F.md');
    assert.equal(new URL(doc.url ?? '').hash, '');
    assert.equal(doc.external_id, 'file:acme/api:docs/Q&A #1?.md');
  });
});
