/** Lowercased word tokens (letters/digits, inner hyphens and apostrophes kept), NFKC-normalized. */
const WORD = /[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+)*/gu;

const ASCII_WORD = /[a-z0-9]+(?:[-'][a-z0-9]+)*/g;
const NON_ASCII = /[^ -~\t\n\r]/;

export function tokenize(text: string): string[] {
  // Plain ASCII (most passages) needs no NFKC and no Unicode classes: the same tokens in half the time.
  if (!NON_ASCII.test(text)) return text.toLowerCase().match(ASCII_WORD) ?? [];
  const out: string[] = [];
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(WORD)) out.push(m[0].replace(/’/g, "'"));
  return out;
}

const STOP = new Set(
  (
    'a about after all also am an and any are as at be been but by can could did do does for from had has have how i if in ' +
    'into is it its just me my no not of on or our out over so some than that the their them then there these they this ' +
    'those to up us was we were what when where which who whom why will with would you your please show find tell give get ' +
    'any anything something everything'
  ).split(' '),
);

/**
 * Content terms of a text: tokens minus stop words, with a light plural/suffix fold so "outages" and "outage"
 * count as one topic term. Deterministic and order-preserving, duplicates removed.
 */
export function contentTerms(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tokenize(text)) {
    if (STOP.has(t) || t.length < 2) continue;
    const folded = fold(t);
    if (seen.has(folded)) continue;
    seen.add(folded);
    out.push(folded);
  }
  return out;
}

function fold(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') && !t.endsWith('us')) return t.slice(0, -1);
  return t;
}
