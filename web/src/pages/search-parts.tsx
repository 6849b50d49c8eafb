import type { Segment } from '../lib/highlight.ts';
import { Link } from '../router.tsx';

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

/** What a fresh instance (no source yet) shows on the search page: the three ways to get documents in. */
export function EmptyGuide({ sources }: { sources: number }) {
  if (sources > 0) return null;
  return (
    <section className="card" aria-labelledby="empty-h" data-testid="empty-guide">
      <h2 id="empty-h">Nothing to search yet: add your first documents</h2>
      <ol>
        <li>
          <strong>Connect a source</strong> that keeps itself up to date (GitHub, Slack, Confluence, Google Drive, a folder…):{' '}
          <Link href="/connectors">Connectors</Link>.
        </li>
        <li>
          <strong>Upload files</strong>: a Slack, Notion or Confluence export (.zip), a CSV table or a JSONL file: <Link href="/upload">Upload</Link>.
        </li>
        <li>
          <strong>Ingest from a terminal</strong>, in the folder you installed Atrium in. <code>login</code> asks once for an API key with the connector:write
          permission; the file then goes through this running service:
          <pre>
            <code>{'./bin/atrium login\n./bin/atrium ingest slack-export.zip --source uploads'}</code>
          </pre>
          <span className="muted small">
            An export zip (Slack, Notion, Confluence), a CSV or a JSONL file. A folder of Markdown, text, HTML, PDF and DOCX files is read by the CLI itself: stop the service,
            run <code>./bin/atrium ingest ./handbook</code>, start it again.
          </span>
        </li>
      </ol>
    </section>
  );
}
