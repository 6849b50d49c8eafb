// Display formatting, with `now` passed in so it stays testable.

export function formatPercent(x: number, digits = 0): string {
  return `${(x * 100).toFixed(digits)} %`;
}

/** "3 min ago", "2 days ago", "in 5 h"; the absolute time belongs in a title attribute. */
export function relativeTime(iso: string | null | undefined, now: Date): string {
  if (!iso) return 'never';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const seconds = Math.round((t - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 5) return 'just now';
  let text: string;
  if (abs < 60) text = `${abs} s`;
  else if (abs < 3600) text = `${Math.floor(abs / 60)} min`;
  else if (abs < 86400) text = `${Math.floor(abs / 3600)} h`;
  else if (abs < 86400 * 60) text = plural(Math.floor(abs / 86400), 'day');
  else if (abs < 86400 * 730) text = plural(Math.floor(abs / (86400 * 30)), 'month');
  else text = plural(Math.floor(abs / (86400 * 365)), 'year');
  return seconds < 0 ? `${text} ago` : `in ${text}`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
