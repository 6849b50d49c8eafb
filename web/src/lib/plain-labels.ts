// Plain words for the federated query's technical terms (the term itself goes in a title attribute), source names
// instead of ids, and identical passages from several sources folded into one result.

const FILTERING: Readonly<Record<string, string>> = {
  very_low: 'showing everything that matches',
  low: 'light filtering',
  normal: 'selective filtering',
  high: 'strict filtering',
  critical: 'critical items only',
};

/** "light filtering" for entropy level `low`; the term and the score go in the hover text. */
export function filteringLabel(level: string | undefined, entropy: number): { text: string; term: string } {
  const key = (level ?? '').toLowerCase().replace(/[\s-]+/g, '_');
  return {
    text: FILTERING[key] ?? (level ? level.replace(/_/g, ' ') : 'no filtering level'),
    term: `user entropy ${entropy.toFixed(2)}${level ? ` · entropy level ${level.replace(/_/g, ' ')}` : ''}: how strictly results are filtered for your recent searching`,
  };
}

export function dampingLabel(active: boolean): { text: string; term: string } {
  return active
    ? { text: 'fewer results, most important first', term: 'homeostasis damping active: your recent searching looks overloaded, so fewer results are shown and critical ones first' }
    : { text: 'all results shown', term: 'homeostasis damping off' };
}

/**
 * A source's name: a local connector's display name, or `node › source` for a remote node's source
 * (`paris/jira-1` → `paris › jira-1`, with the remote source's id, which this node does not know by name).
 */
export function sourceName(nodeId: string, names: ReadonlyMap<string, string>): string {
  const own = names.get(nodeId);
  if (own) return own;
  const slash = nodeId.indexOf('/');
  if (slash > 0) {
    const node = nodeId.slice(0, slash);
    return `${names.get(node) ?? node} › ${nodeId.slice(slash + 1)}`;
  }
  return nodeId;
}

/** The text two passages are compared by: case, spacing and punctuation at the ends do not count. */
export function passageKey(content: string): string {
  return content.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * The items in order, each passage once: a later item whose text is identical to an earlier one's is folded into it,
 * and the earlier one lists the other sources holding it (`alsoIn`, without its own source, each once).
 */
export function collapseDuplicates<T extends { readonly content: string; readonly source_node: string }>(items: readonly T[]): { item: T; alsoIn: string[] }[] {
  const out: { item: T; alsoIn: string[] }[] = [];
  const byKey = new Map<string, { item: T; alsoIn: string[] }>();
  for (const item of items) {
    const key = passageKey(item.content);
    const first = key ? byKey.get(key) : undefined;
    if (!first) {
      const entry = { item, alsoIn: [] as string[] };
      out.push(entry);
      if (key) byKey.set(key, entry);
      continue;
    }
    if (item.source_node !== first.item.source_node && !first.alsoIn.includes(item.source_node)) first.alsoIn.push(item.source_node);
  }
  return out;
}
