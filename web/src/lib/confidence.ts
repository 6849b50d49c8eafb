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
