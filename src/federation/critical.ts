/** What critical detection reads from an item. */
export interface CriticalInput {
  readonly title: string;
  readonly content: string;
  readonly document_type: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface CriticalResult {
  readonly is_critical: boolean;
  /** Which signals fired, e.g. `metadata.priority=P0`, `type:incident`, `title:outage`. */
  readonly signals: readonly string[];
}

/**
 * Metadata keys whose values carry a priority or severity. `*_label` keys hold the word where a source stores
 * a number under the key itself (Linear: `priority: 1`, `priority_label: "Urgent"`).
 */
const PRIORITY_KEYS = ['priority', 'priority_label', 'severity', 'severity_label', 'urgency', 'level', 'labels', 'tags', 'label'] as const;
const CRITICAL_VALUE = /^(p0|p1|sev[\s-]?0|sev[\s-]?1|s0|s1|critical|blocker|urgent|highest|emergency|security|incident|outage)$/i;
const CRITICAL_TYPES = new Set(['incident', 'alert', 'outage', 'security_advisory', 'postmortem']);
const CRITICAL_LANGUAGE =
  /\b(incidents?|outages?|security (?:issue|incident|advisory|vulnerability)|vulnerabilit(?:y|ies)|breach(?:ed)?|cve-\d{4}-\d+|deadlines?|data loss|sev[\s-]?[01]|p0|urgent|critical|is down|went down|production down|emergency)\b/i;
/** Query urgency from which critical language in the body (not only the title) counts. */
export const CONTENT_URGENCY = 0.6;

/**
 * `is_critical` from documented signals (docs/ranking.md, "Critical detection"): a priority/severity value in
 * metadata, an incident-like document type, critical language in the title, or critical language in the body
 * when the query is urgent (urgency ≥ 0.6).
 */
export function detectCritical(item: CriticalInput, urgency: number): CriticalResult {
  const signals: string[] = [];
  for (const key of PRIORITY_KEYS) {
    for (const v of values(item.metadata[key])) {
      if (CRITICAL_VALUE.test(v.trim())) signals.push(`metadata.${key}=${v}`);
    }
  }
  const type = item.document_type.toLowerCase();
  if (CRITICAL_TYPES.has(type)) signals.push(`type:${type}`);
  const title = CRITICAL_LANGUAGE.exec(item.title);
  if (title) signals.push(`title:${title[1]!.toLowerCase()}`);
  if (urgency >= CONTENT_URGENCY) {
    const body = CRITICAL_LANGUAGE.exec(item.content);
    if (body) signals.push(`content:${body[1]!.toLowerCase()}`);
  }
  return { is_critical: signals.length > 0, signals };
}

function values(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number') return [String(v)];
  if (Array.isArray(v)) return v.flatMap((x) => (typeof x === 'string' ? [x] : isNamed(x) ? [x.name] : []));
  if (isNamed(v)) return [v.name];
  return [];
}

function isNamed(v: unknown): v is { name: string } {
  return typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string';
}
