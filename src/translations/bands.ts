export type ConfidenceBand = 'excellent' | 'good' | 'fair' | 'poor';

const MEANING: Record<ConfidenceBand, string> = {
  excellent: 'excellent',
  good: 'good, minor drift',
  fair: 'fair',
  poor: 'poor, retrain',
};

/** The spec's interpretation of a confidence: ≥ 0.95 excellent, 0.85-0.95 good, 0.70-0.85 fair, < 0.70 poor. */
export function confidenceBand(confidence: number): { band: ConfidenceBand; interpretation: string } {
  const band: ConfidenceBand = confidence >= 0.95 ? 'excellent' : confidence >= 0.85 ? 'good' : confidence >= 0.7 ? 'fair' : 'poor';
  return { band, interpretation: MEANING[band] };
}
