// Translation confidence bands as the spec defines them.

export type ConfidenceBand = 'excellent' | 'good' | 'fair' | 'poor';

export const BAND_TEXT: Readonly<Record<ConfidenceBand, string>> = {
  excellent: 'excellent',
  good: 'good, minor drift',
  fair: 'fair',
  poor: 'poor, retrain',
};

/** ≥ 0.95 excellent, 0.85–0.95 good, 0.70–0.85 fair, below 0.70 poor. */
export function confidenceBand(confidence: number): ConfidenceBand {
  if (confidence >= 0.95) return 'excellent';
  if (confidence >= 0.85) return 'good';
  if (confidence >= 0.7) return 'fair';
  return 'poor';
}

/** What a band says, plainly: confidence is the share of a constant guess's error the map removes (docs/vec2vec.md). */
export const BAND_MEANING: Readonly<Record<ConfidenceBand, string>> = {
  excellent: 'the map removes 95 % or more of the error a constant guess would leave',
  good: 'the map removes 85–95 % of the error a constant guess would leave',
  fair: 'the map removes 70–85 % of the error a constant guess would leave',
  poor: 'the map removes less than 70 % of the error a constant guess would leave',
};

/** Held-out retrieval at which a translation is useful in search whatever its band: the right text first at least half the time. */
export const RETRIEVAL_FINE = 0.5;

export type ConfidenceTone = 'good' | 'info' | 'warn' | 'bad' | 'neutral';

/**
 * How a translation's confidence is shown. A low band alone is no alarm: a shipped pair whose held-out retrieval is
 * fine (top-1 ≥ 0.5) is shown in neutral colours and says so; only a pair that is poor on both counts reads "retrain".
 */
export function confidenceView(confidence: number, top1: number | null, builtin: boolean): { band: ConfidenceBand; label: string; meaning: string; tone: ConfidenceTone } {
  const band = confidenceBand(confidence);
  const meaning = BAND_MEANING[band];
  const fine = top1 !== null && top1 >= RETRIEVAL_FINE;
  if (band === 'excellent') return { band, label: 'excellent', meaning, tone: 'good' };
  if (band === 'good') return { band, label: 'good, minor drift', meaning, tone: 'info' };
  if (fine) return { band, label: band === 'fair' ? 'fair; retrieval fine' : 'low; retrieval fine', meaning, tone: 'neutral' };
  if (band === 'fair') return { band, label: 'fair', meaning, tone: 'warn' };
  return { band, label: builtin ? 'low; use with care' : 'poor, retrain', meaning, tone: builtin ? 'warn' : 'bad' };
}
