/**
 * Word tokenization for the static word-vector models. GloVe's vocabulary is lowercased Stanford
 * tokens: words, numbers, hyphenated compounds ("cross-country") and clitics ("n't", "'s").
 */
const WORD = /[\p{L}\p{N}]+(?:[-'’.][\p{L}\p{N}]+)*/gu;

export function tokenizeWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().normalize('NFKC').matchAll(WORD)) out.push(m[0].replace(/’/g, "'"));
  return out;
}

/**
 * Function words carry little topical meaning and dominate a plain average; they are dropped before
 * averaging (the classic "average without stop words" baseline). A short list on purpose: negations
 * and domain words ("not", "system") stay.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them themselves then there these they ' +
    'this those through to too under until up very was we were what when where which while who whom why will with would ' +
    "you your yours yourself yourselves 's 're 've 'd 'll 'm s t"
  ).split(' '),
);

/**
 * Smooth inverse frequency weight (Arora et al., 2017): a / (a + p(w)). GloVe's vocabulary is sorted
 * by corpus frequency, so p(w) is estimated from the rank with Zipf's law, p(r) ≈ 1 / (r · H_N).
 */
export function sifWeight(rank: number, vocabularySize: number, a = 1e-3): number {
  const harmonic = Math.log(vocabularySize) + 0.5772;
  const p = 1 / ((rank + 1) * harmonic);
  return a / (a + p);
}
