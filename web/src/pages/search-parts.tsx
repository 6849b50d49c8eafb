import type { Segment } from '../lib/highlight.ts';

export function Highlighted({ segments }: { segments: readonly Segment[] }) {
  return (
    <>
      {segments.map((s, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
        s.match ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>,
      )}
    </>
  );
}

const ICON_COLORS = ['#3b4cca', '#0f766e', '#b45309', '#7c3aed', '#be123c', '#0369a1', '#4d7c0f'];

/** A letter mark per connector type: no third-party logos ship with the console. */
export function SourceIcon({ type }: { type: string | undefined }) {
  const t = type ?? 'source';
  let h = 0;
  for (const ch of t) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return (
    <span className="source-icon" style={{ background: ICON_COLORS[h % ICON_COLORS.length] }} title={t} aria-label={`${t} source`} role="img">
      {t.charAt(0).toUpperCase()}
    </span>
  );
}
