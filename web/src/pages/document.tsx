import { api, isRecord } from '../api.ts';
import { SourceLink } from '../components/source-link.tsx';
import { ErrorBox, JsonView, Loading, PageTitle } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { Link } from '../router.tsx';

type Doc = Record<string, unknown>;

function s(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

export function DocumentPage({ id }: { id: string }) {
  const doc = useLoad((signal) => api<Doc>(`/v1/documents/${encodeURIComponent(id)}`, { signal }), [id]);
  const d = doc.data && isRecord(doc.data.document) ? doc.data.document : doc.data;
  const url = d ? s(d.url) : undefined;
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
              ['Source', s(d.source_node) ?? s(d.connector_id)],
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
          <div className="content">{s(d.content) ?? ''}</div>
          {isRecord(d.metadata) && Object.keys(d.metadata).length > 0 && (
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
