/**
 * USE lite's unigram SentencePiece tokenizer (Viterbi over the vocabulary's log-probabilities),
 * reimplemented to give exactly the ids of `@energetic-ai/embeddings` (tokenizer.test.ts checks this
 * on real text) at O(length × longest piece) instead of the upstream trie walk over every suffix,
 * which is ~100× slower on 1 KB texts. Quirks kept on purpose: `null` scores count as 0, a score of
 * 0 counts as "unset", ties go to the later start, unknown characters become id 0 and consecutive
 * unknowns merge.
 */
const SEPARATOR = '\u2581';
const RESERVED = 6;

export function createUseTokenizer(vocabulary: readonly (readonly [string, number | null])[]): (text: string) => number[] {
  const pieces = new Map<string, { score: number; index: number }>();
  let maxLen = 1;
  for (let i = RESERVED; i < vocabulary.length; i++) {
    const [piece, score] = vocabulary[i]!;
    pieces.set(piece, { score: score ?? 0, index: i });
    maxLen = Math.max(maxLen, Array.from(piece).length);
  }
  const unknownLength = vocabulary[0]?.[0].length ?? 1;

  return (text) => {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const symbols = Array.from(SEPARATOR + normalized.replace(/ /g, SEPARATOR));
    const n = symbols.length;
    // Forward Viterbi: when `start` is reached its best score is final (every piece ending there
    // began earlier), and candidates for an end arrive in increasing start order, as upstream.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let start = 0; start < n; start++) {
      const base = best[start]!;
      let s = '';
      let matched = false;
      for (let len = 1; len <= maxLen && start + len <= n; len++) {
        s += symbols[start + len - 1];
        const hit = pieces.get(s);
        if (!hit) continue;
        matched = true;
        const end = start + len;
        const score = hit.score + base;
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          words[end] = hit.index;
        }
      }
      if (!matched && (best[start + 1] === 0 || base >= best[start + 1]!)) {
        best[start + 1] = base;
        words[start + 1] = 0;
      }
    }
    const ids: number[] = [];
    for (let at = n; at > 0; ) {
      const id = words[at]!;
      ids.push(id);
      at -= id === 0 ? unknownLength : vocabulary[id]![0].length;
    }
    const merged: number[] = [];
    let previousUnknown = false;
    for (const id of ids) {
      if (!(previousUnknown && id === 0)) merged.push(id);
      previousUnknown = id === 0;
    }
    return merged.reverse();
  };
}
