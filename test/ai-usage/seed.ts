import type { UsageRecord } from '../../src/connectors/kit/index.ts';

/** `n` days from `start` (YYYY-MM-DD), as YYYY-MM-DD. */
export function days(start: string, n: number): string[] {
  const t0 = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => new Date(t0 + i * 86_400_000).toISOString().slice(0, 10));
}

/** Steady, sanctioned use: one usage and one cost bucket a day for key_a / ada / gpt-4.1 (openai-like). */
export function steady(provider: string, from: string, n: number, opts: { model?: string; key?: string; user?: string; cost?: number; tokens?: number } = {}): UsageRecord[] {
  const model = opts.model ?? 'gpt-4.1';
  const key = opts.key ?? 'key_a';
  const user = opts.user ?? 'ada@acme.test';
  return days(from, n).flatMap((d, i) => [
    {
      record_id: `${provider}:usage:${d}:${key}:${model}:${user}`,
      kind: 'usage' as const,
      day: d,
      workspace: 'org_1',
      project: 'proj_growth',
      user,
      api_key: key,
      model,
      requests: 10,
      // a little day-to-day wobble, never near a spike
      input_tokens: (opts.tokens ?? 1000) + (i % 3) * 50,
      output_tokens: 200,
    },
    { record_id: `${provider}:cost:${d}:${key}`, kind: 'cost' as const, day: d, workspace: 'org_1', project: 'proj_growth', api_key: key, cost_usd: (opts.cost ?? 10) + (i % 2) },
  ]);
}
