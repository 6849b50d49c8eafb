import type { ReactNode } from 'react';
import { sourceUrl } from '../lib/source-url.ts';

/** A document's source url: a new-tab link when it is an absolute http(s) URL, otherwise its text (not clickable). */
export function SourceLink({ url, children }: { url: string; children: ReactNode }) {
  const shown = sourceUrl(url);
  if (shown.kind === 'link') {
    return (
      <a href={shown.href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    );
  }
  return (
    <span className="source-text" data-testid="source-text">
      Location: <code className="wrap">{shown.text}</code>
    </span>
  );
}
