import { useState } from 'react';
import Markdown from 'react-markdown';
import { call } from '../api.ts';
import { SourceLink } from '../components/source-link.tsx';
import { ErrorBox, JsonView, Loading, PageTitle } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { looksLikeMarkdown } from '../lib/markdown.ts';
import { sourceName } from '../lib/plain-labels.ts';
import { Link } from '../router.tsx';

/** A text field worth showing: absent, null and empty all read as "nothing to show". */
function s(v: string | null | undefined): string | undefined {
  return v || undefined;
}

export function DocumentPage({ id }: { id: string }) {
  const doc = useLoad((signal) => call((c) => c.GET('/v1/documents/{id}', { params: { path: { id } }, signal })), [id]);
  const d = doc.data;
  const url = d ? s(d.url) : undefined;
  const nodes = useLoad((signal) => call((c) => c.GET('/v1/nodes', { signal })).catch(() => ({ nodes: [] })), []);
  const names = new Map((nodes.data?.nodes ?? []).map((n) => [n.node_id, n.name]));
  const source = d ? s(d.source_node) : undefined;
  return (
    <>
      <p>
        <Link href="/search" onClick={(e) => {
          if (history.length > 1) {
            e.preventDefault();
            history.back();
          }
        }}>
          ← Back to results
        </Link>
      </p>
      <ErrorBox error={doc.error} />
      {doc.loading && !d && <Loading />}
      {d && (
        <article className="document">
          <PageTitle>{s(d.title) ?? id}</PageTitle>
          <dl className="kv">
            {[
              ['Source', source === undefined ? undefined : sourceName(source, names)],
              ['Type', s(d.document_type)],
              ['Author', s(d.author)],
              ['Created', s(d.created_at)],
              ['Updated', s(d.updated_at)],
              ['Embedding model', s(d.embedding_model)],
            ]
              .filter((r): r is [string, string] => r[1] !== undefined)
              .map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
          </dl>
          {url && (
            <p>
              <SourceLink url={url}>Open in the source tool ↗</SourceLink>
            </p>
          )}
          <DocumentText content={d.content} type={s(d.document_type)} />
          {Object.keys(d.metadata).length > 0 && (
            <details>
              <summary>Metadata</summary>
              <JsonView value={d.metadata} />
            </details>
          )}
        </article>
      )}
    </>
  );
}

/**
 * Markdown rendered, safely: react-markdown builds React elements (no innerHTML), shows raw HTML in the text as text,
 * drops `javascript:` and other unsafe link targets, and images become their alt text (no request leaves the page).
 */
function DocumentText({ content, type }: { content: string; type: string | undefined }) {
  const markdown = looksLikeMarkdown(content, type);
  const [plain, setPlain] = useState(false);
  if (!markdown) return <div className="content">{content}</div>;
  return (
    <>
      <p className="row end">
        <button type="button" className="secondary small" onClick={() => setPlain(!plain)} aria-pressed={plain}>
          {plain ? 'Show formatted' : 'Show the Markdown source'}
        </button>
      </p>
      {plain ? (
        <div className="content">{content}</div>
      ) : (
        <div className="content markdown" data-testid="markdown">
          <Markdown components={{ img: ({ alt }) => <span className="muted">[image{alt ? `: ${alt}` : ''}]</span> }}>{content}</Markdown>
        </div>
      )}
    </>
  );
}
