import { tokenize } from './terms.ts';

export const INTENT_DIMENSIONS = ['urgency', 'emotional_weight', 'action_likelihood', 'social_dimension', 'context_sensitivity'] as const;
export type IntentDimension = (typeof INTENT_DIMENSIONS)[number];
export type IntentSignal = Readonly<Record<IntentDimension, number>>;

interface Rule {
  /** Value with no cue in the text. */
  readonly base: number;
  /** Single-word cues (lowercased tokens). */
  readonly words: ReadonlySet<string>;
  /** Multi-word cues matched on the normalized text. */
  readonly phrases: readonly string[];
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(' '));

/** Documented in docs/ranking.md ("Intent inference"); keep the two in step. */
export const INTENT_RULES: Readonly<Record<IntentDimension, Rule>> = {
  urgency: {
    base: 0.2,
    words: words(
      'urgent urgently asap immediately now today tonight emergency critical outage outages down incident incidents broken ' +
        'blocker blocking deadline overdue sev0 sev1 p0 p1 breach failing failed fire hotfix',
    ),
    phrases: ['right now', 'as soon as possible', 'end of day', 'not working'],
  },
  emotional_weight: {
    base: 0.1,
    words: words(
      'angry upset frustrated frustrating worried worry concerned concern unhappy happy love hate complaint complaints ' +
        'complain disappointed afraid scared stress stressed burnout morale feedback sorry apology escalation escalated furious',
    ),
    phrases: ['feel like', 'fed up'],
  },
  action_likelihood: {
    base: 0.3,
    words: words(
      'create fix deploy update close assign schedule file submit merge release rollback revert restart configure install ' +
        'approve book send open resolve migrate run setup todo task tasks',
    ),
    phrases: ['how do i', 'how to', 'steps to', 'what should i', 'need to', 'set up'],
  },
  social_dimension: {
    base: 0.2,
    words: words(
      'we team teams meeting meetings discussed discussion said conversation conversations thread threads channel channels ' +
        'chat standup sync colleague colleagues together mentioned reply replied asked who',
    ),
    phrases: ['talked about', 'who said', 'who owns'],
  },
  context_sensitivity: {
    base: 0.3,
    words: words('my mine i me our this that last latest recent recently yesterday current currently ongoing again previous mentioned'),
    phrases: ['i was', 'we were', 'earlier today', 'last week'],
  },
};

/** Each cue multiplies the distance to 1 by this factor: 1 cue → base + 0.4·(1 − base), 2 → +0.64·(1 − base), … */
const CUE_FACTOR = 0.6;

/** Infers the five intent dimensions from the query text by the cue rules above. Pure and deterministic. */
export function inferIntent(text: string): IntentSignal {
  const tokens = tokenize(text);
  const normalized = ` ${tokens.join(' ')} `;
  const exclaim = /!/.test(text) ? 1 : 0;
  const out = {} as Record<IntentDimension, number>;
  for (const dim of INTENT_DIMENSIONS) {
    const rule = INTENT_RULES[dim];
    let cues = 0;
    for (const t of new Set(tokens)) if (rule.words.has(t)) cues++;
    for (const p of rule.phrases) if (normalized.includes(` ${p} `)) cues++;
    if (dim === 'urgency' || dim === 'emotional_weight') cues += exclaim;
    // A question that starts with an imperative verb is a request to act.
    if (dim === 'action_likelihood' && tokens[0] !== undefined && rule.words.has(tokens[0])) cues++;
    out[dim] = round(1 - (1 - rule.base) * CUE_FACTOR ** cues);
  }
  return out;
}

/** Given dimensions override inferred ones one by one; the rest stay inferred. */
export function resolveIntent(given: Partial<IntentSignal> | null, inferred: IntentSignal): IntentSignal {
  if (!given) return inferred;
  const out = { ...inferred };
  for (const dim of INTENT_DIMENSIONS) {
    const v = given[dim];
    if (v !== undefined) out[dim] = v;
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
