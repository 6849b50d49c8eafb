/** Texts for training from an uploaded or pasted file: a JSON array of strings, JSON lines, or one text per line. */
export function parseParallelTexts(content: string): string[] {
  const trimmed = content.trim();
  if (!trimmed) return [];
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.filter((t): t is string => typeof t === 'string').map((t) => t.trim()).filter(Boolean);
    } catch {
      // not JSON after all: one text per line
    }
  }
  return trimmed
    .split(/\r?\n/)
    .map((line) => {
      const l = line.trim();
      if (l.startsWith('"') && l.endsWith('"')) {
        try {
          const v: unknown = JSON.parse(l);
          if (typeof v === 'string') return v.trim();
        } catch {
          // keep the raw line
        }
      }
      return l;
    })
    .filter(Boolean);
}
