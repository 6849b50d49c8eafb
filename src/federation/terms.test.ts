import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentTerms, tokenize } from './terms.ts';

describe('tokenize', () => {
  it('gives plain ASCII text (its fast path) the same tokens as the Unicode path', () => {
    const texts = [
      "Payment OUTAGE at 10:30, P1! don't-panic re-deploy a--b 'quoted' x_y foo'' -bar- ABC123def",
      "it's the server's fault - see #42/ticket_7 (v2.1.0) e-mail: ops@example.com\ttab\nnew line",
    ];
    // A trailing non-ASCII word sends the text down the Unicode path; it adds exactly one token.
    for (const t of texts) assert.deepEqual(tokenize(t), tokenize(`${t} é`).slice(0, -1), t);
  });
  it('folds Unicode: NFKC, lowercase, typographic apostrophes', () => {
    assert.deepEqual(tokenize('Ｃａｆé DON’T ﬁle'), ['café', "don't", 'file']);
    assert.deepEqual(contentTerms('The outages and Outage of policies'), ['outage', 'policy']);
  });
});
