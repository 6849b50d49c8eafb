import { DEFAULT_DAMPING_THRESHOLD } from './damping.ts';

/** One past query of a user, as recorded by the federated query (only what entropy needs). */
export interface ActivityEvent {
  readonly at: Date;
  /** Content terms of the query (see `contentTerms`). */
  readonly terms: readonly string[];
}

export interface EntropyOptions {
  /** Events older than this are ignored. */
  readonly windowMinutes: number;
  /** Recency weight `exp(-age / tau)` of an event in the topic distribution. */
  readonly tauMinutes: number;
  /** Two queries share a topic when their overlap coefficient reaches this. */
  readonly topicOverlap: number;
  /** The rate term counts queries in this many trailing minutes… */
  readonly rateMinutes: number;
  /** …and is `log2(n / rateReference)` bits above this many queries, 0 at or below it. */
  readonly rateReference: number;
  /** At most this many most recent events are considered. */
  readonly maxEvents: number;
}

export const DEFAULT_ENTROPY_OPTIONS: EntropyOptions = {
  windowMinutes: 30,
  tauMinutes: 15,
  topicOverlap: 0.5,
  rateMinutes: 5,
  rateReference: 5,
  maxEvents: 100,
};

export const ENTROPY_LEVELS = ['very_low', 'low', 'normal', 'high', 'critical'] as const;
export type EntropyLevel = (typeof ENTROPY_LEVELS)[number];

/**
 * Level bounds in bits at the default damping threshold (2.0): very_low [0, 0.5), low [0.5, 1), normal [1, 2],
 * high (2, 3], critical > 3. `normal` includes 2.0 so that damping starts exactly where `high` does.
 */
export const LEVEL_BOUNDS: Readonly<Record<Exclude<EntropyLevel, 'critical'>, number>> = {
  very_low: 0.5,
  low: 1.0,
  normal: 2.0,
  high: 3.0,
};

/**
 * The level bounds for a damping threshold `t` (ATRIUM_DAMPING_THRESHOLD): normal ends at `t`, high spans
 * (t, t + 1], critical is above t + 1, and the two lower bounds are capped at `t`. So damping is active
 * exactly at the high and critical levels, whatever the threshold; `t` = 2 gives LEVEL_BOUNDS.
 */
export function levelBounds(threshold: number): Readonly<Record<Exclude<EntropyLevel, 'critical'>, number>> {
  const t = Math.max(0, threshold);
  return { very_low: Math.min(LEVEL_BOUNDS.very_low, t), low: Math.min(LEVEL_BOUNDS.low, t), normal: t, high: t + 1 };
}

export interface UserEntropy {
  /** topic_bits + rate_bits, rounded to 4 decimals. */
  readonly entropy: number;
  readonly level: EntropyLevel;
  /** Shannon entropy (bits) of the recency-weighted topic distribution. */
  readonly topic_bits: number;
  readonly rate_bits: number;
  readonly topics: number;
  readonly events: number;
}

/**
 * A user's current cognitive load from their recent queries (docs/ranking.md, "User entropy"):
 * queries in the window are grouped into topics (greedy, oldest first: a query joins the first topic whose
 * seed terms overlap its own by ≥ `topicOverlap`, |A∩B| / min(|A|,|B|)); each query weighs `exp(-age/tau)`;
 * `topic_bits = −Σ p·log2 p` over topic weights; `rate_bits = max(0, log2(n_rate / rateReference))`.
 * Deterministic for a given history and `now`; the caller includes the current query as an event at `now`.
 */
export function computeUserEntropy(
  history: readonly ActivityEvent[],
  now: Date,
  opts: EntropyOptions = DEFAULT_ENTROPY_OPTIONS,
  threshold = DEFAULT_DAMPING_THRESHOLD,
): UserEntropy {
  const nowMs = now.getTime();
  const windowMs = opts.windowMinutes * 60_000;
  const events = history
    .filter((e) => {
      const age = nowMs - e.at.getTime();
      return age >= 0 && age <= windowMs;
    })
    .sort((a, b) => a.at.getTime() - b.at.getTime() || key(a).localeCompare(key(b)))
    .slice(-opts.maxEvents);

  const topics: { seed: ReadonlySet<string>; weight: number }[] = [];
  for (const e of events) {
    const weight = Math.exp(-(nowMs - e.at.getTime()) / (opts.tauMinutes * 60_000));
    const terms = new Set(e.terms);
    const topic = topics.find((t) => overlap(t.seed, terms) >= opts.topicOverlap);
    if (topic) topic.weight += weight;
    else topics.push({ seed: terms, weight });
  }
  const total = topics.reduce((s, t) => s + t.weight, 0);
  let topicBits = 0;
  if (total > 0) {
    for (const t of topics) {
      const p = t.weight / total;
      if (p > 0) topicBits -= p * Math.log2(p);
    }
  }
  const rateWindow = opts.rateMinutes * 60_000;
  const recent = events.filter((e) => nowMs - e.at.getTime() <= rateWindow).length;
  const rateBits = recent > opts.rateReference ? Math.log2(recent / opts.rateReference) : 0;
  const entropy = round(topicBits + rateBits);
  return { entropy, level: entropyLevel(entropy, threshold), topic_bits: round(topicBits), rate_bits: round(rateBits), topics: topics.length, events: events.length };
}

export function entropyLevel(entropy: number, threshold = DEFAULT_DAMPING_THRESHOLD): EntropyLevel {
  const b = levelBounds(threshold);
  if (entropy < b.very_low) return 'very_low';
  if (entropy < b.low) return 'low';
  if (entropy <= b.normal) return 'normal';
  if (entropy <= b.high) return 'high';
  return 'critical';
}

/** Overlap coefficient; two empty term sets are the same ("no topic") topic. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return a.size === b.size ? 1 : 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / Math.min(a.size, b.size);
}

function key(e: ActivityEvent): string {
  return e.terms.join(' ');
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
