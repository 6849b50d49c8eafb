import { type FormEvent, useEffect, useState } from 'react';
import { call, isRecord, type OperationRequestBody, type OperationResponse } from '../api.ts';
import { SourceLink } from '../components/source-link.tsx';
import { Badge, ErrorBox, Field, Loading, PageTitle } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { confidenceBand } from '../lib/confidence.ts';
import { relativeTime } from '../lib/format.ts';
import { highlightSegments, makeSnippet, queryTerms } from '../lib/highlight.ts';
import { looksLikeMarkdown, stripMarkdown } from '../lib/markdown.ts';
import { collapseDuplicates, dampingLabel, filteringLabel, sourceName } from '../lib/plain-labels.ts';
import { Link } from '../router.tsx';
import { useSession } from '../session.tsx';
import { EmptyGuide, Highlighted, SourceIcon } from './search-parts.tsx';

type FederatedResponse = OperationResponse<'postFederate'>;
export type FederatedItem = FederatedResponse['items'][number];

const INTENT_DIMENSIONS = [
  ['urgency', 'Urgency (future → immediate)'],
  ['emotional_weight', 'Emotional weight (rational → emotional)'],
  ['action_likelihood', 'Action likelihood (browsing → acting)'],
  ['social_dimension', 'Social dimension (solo → collaborative)'],
  ['context_sensitivity', 'Context sensitivity'],
] as const;

type IntentKey = (typeof INTENT_DIMENSIONS)[number][0];

function list(text: string): string[] | undefined {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

export function SearchPage() {
  const session = useSession();
  const [query, setQuery] = useState(() => new URLSearchParams(location.search).get('q') ?? '');
  const [maxResults, setMaxResults] = useState('10');
  const [sources, setSources] = useState<Set<string>>(new Set());
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const [authors, setAuthors] = useState('');
  const [types, setTypes] = useState('');
  const [connectorType, setConnectorType] = useState('');
  const [documentType, setDocumentType] = useState('');
  const [useIntent, setUseIntent] = useState(false);
  const [intent, setIntent] = useState<Record<IntentKey, number>>({ urgency: 0.5, emotional_weight: 0.5, action_likelihood: 0.5, social_dimension: 0.5, context_sensitivity: 0.5 });
  const [force, setForce] = useState(false);
  const [result, setResult] = useState<{ response: FederatedResponse; terms: string[] } | null>(null);
  const nodes = useLoad((signal) => call((c) => c.GET('/v1/nodes', { signal })), []);

  const search = useAction(async () => {
    const filters: NonNullable<OperationRequestBody<'postFederate'>['filters']> = {};
    if (after || before) filters.date_range = { ...(after ? { after: new Date(after).toISOString() } : {}), ...(before ? { before: new Date(before).toISOString() } : {}) };
    if (list(authors)) filters.authors = list(authors);
    if (list(types)) filters.types = list(types);
    if (connectorType.trim()) filters.connector_type = connectorType.trim();
    if (documentType.trim()) filters.document_type = documentType.trim();
    const body: OperationRequestBody<'postFederate'> = {
      query: query.trim(),
      user_id: session.me?.user_id ?? 'console',
      max_results: Number(maxResults) || 10,
      include_reasoning: true,
      ...(sources.size ? { node_ids: [...sources] } : {}),
      ...(Object.keys(filters).length ? { filters } : {}),
      ...(useIntent ? { intent_signal: intent } : {}),
    };
    const response = await call((c) => (force ? c.POST('/v1/federate/force', { body }) : c.POST('/v1/federate', { body })));
    setResult({ response, terms: queryTerms(body.query) });
  });

  // Only the query from the address bar runs on its own, once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: run once on mount
  useEffect(() => {
    if (query.trim()) void search.run();
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!query.trim()) return;
    history.replaceState(null, '', `/search?q=${encodeURIComponent(query.trim())}`);
    void search.run();
  };

  return (
    <>
      <PageTitle>Search</PageTitle>
      <search>
      <form onSubmit={submit} className="search-form">
        <div className="search-box">
          <label htmlFor="q" className="sr-only">
            Search query
          </label>
          <input id="q" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Ask anything across your sources" />
          <button type="submit" disabled={search.pending || !query.trim()}>
            {search.pending ? 'Searching…' : 'Search'}
          </button>
        </div>
        <details className="options">
          <summary>Options: sources, dates, authors, types, intent</summary>
          <div className="grid">
            <fieldset>
              <legend>Sources</legend>
              {nodes.data?.nodes.length ? (
                nodes.data.nodes.map((c) => (
                  <label key={c.node_id} className="check">
                    <input
                      type="checkbox"
                      checked={sources.has(c.node_id)}
                      onChange={() =>
                        setSources((s) => {
                          const n = new Set(s);
                          if (n.has(c.node_id)) n.delete(c.node_id);
                          else n.add(c.node_id);
                          return n;
                        })
                      }
                    />{' '}
                    {c.name} <span className="muted">({c.connector_type ?? c.kind})</span>
                  </label>
                ))
              ) : (
                <p className="muted">All sources.</p>
              )}
            </fieldset>
            <Field label="Updated after">{(id) => <input id={id} type="date" value={after} onChange={(e) => setAfter(e.target.value)} />}</Field>
            <Field label="Updated before">{(id) => <input id={id} type="date" value={before} onChange={(e) => setBefore(e.target.value)} />}</Field>
            <Field label="Authors" hint="comma-separated">{(id, h) => <input id={id} value={authors} onChange={(e) => setAuthors(e.target.value)} aria-describedby={h} />}</Field>
            <Field label="Types" hint="comma-separated, e.g. issue, page, message">{(id, h) => <input id={id} value={types} onChange={(e) => setTypes(e.target.value)} aria-describedby={h} />}</Field>
            <Field label="Connector type">{(id) => <input id={id} value={connectorType} onChange={(e) => setConnectorType(e.target.value)} placeholder="e.g. github" />}</Field>
            <Field label="Document type">{(id) => <input id={id} value={documentType} onChange={(e) => setDocumentType(e.target.value)} />}</Field>
            <Field label="Maximum results">{(id) => <input id={id} type="number" min={1} max={100} value={maxResults} onChange={(e) => setMaxResults(e.target.value)} />}</Field>
            <label className="check">
              <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Query every source, bypass the cache (slower)
            </label>
          </div>
          <fieldset>
            <legend>
              <label className="check">
                <input type="checkbox" checked={useIntent} onChange={(e) => setUseIntent(e.target.checked)} /> Set the intent signal myself
              </label>
            </legend>
            {INTENT_DIMENSIONS.map(([key, label]) => (
              <Field key={key} label={`${label}: ${intent[key].toFixed(2)}`}>
                {(id) => (
                  <input id={id} type="range" min={0} max={1} step={0.05} value={intent[key]} disabled={!useIntent} onChange={(e) => setIntent({ ...intent, [key]: Number(e.target.value) })} />
                )}
              </Field>
            ))}
          </fieldset>
        </details>
      </form>
      </search>
      <ErrorBox error={nodes.error} title="Sources could not be listed" />
      <ErrorBox error={search.error} />
      {search.pending && !result && <Loading label="Searching…" />}
      {result && <Results response={result.response} terms={result.terms} names={new Map((nodes.data?.nodes ?? []).map((n) => [n.node_id, n.name]))} />}
      {!result && !search.pending && nodes.data && <EmptyGuide sources={nodes.data.nodes.length} />}
    </>
  );
}

function Results({ response, terms, names }: { response: FederatedResponse; terms: string[]; names: ReadonlyMap<string, string> }) {
  const now = new Date();
  const shown = collapseDuplicates(response.items);
  const filtering = filteringLabel(response.reasoning?.entropy_level, response.user_entropy);
  const damping = dampingLabel(response.damping_active);
  return (
    <section aria-labelledby="results-h" aria-live="polite">
      <h2 id="results-h" className="sr-only">
        Results
      </h2>
      <div className="stats" data-testid="search-stats">
        <span>
          {shown.length} result{shown.length === 1 ? '' : 's'} in {response.latency_ms} ms
        </span>
        <span>
          Sources consulted: {response.nodes_consulted.length ? response.nodes_consulted.map((n) => sourceName(n, names)).join(', ') : 'none'}
        </span>
        <span data-testid="entropy" title={filtering.term}>
          Results: <strong>{filtering.text}</strong>
        </span>
        <span data-testid="damping">
          <Badge tone={response.damping_active ? 'warn' : 'neutral'} title={damping.term}>
            {damping.text}
          </Badge>
        </span>
      </div>
      {response.reasoning && (
        <details className="reasoning">
          <summary>How this query was ranked</summary>
          <dl className="kv">
            {response.reasoning.intent && (
              <div>
                <dt>Intent{response.reasoning.intent_inferred?.length ? ' (inferred: ' + response.reasoning.intent_inferred.join(', ') + ')' : ''}</dt>
                <dd>
                  {Object.entries(response.reasoning.intent)
                    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v.toFixed(2)}`)
                    .join(' · ')}
                </dd>
              </div>
            )}
            {response.reasoning.surfaced_limit !== undefined && (
              <div>
                <dt>Results surfaced at most</dt>
                <dd>{response.reasoning.surfaced_limit}</dd>
              </div>
            )}
            {response.reasoning.cache && (
              <div>
                <dt>Cache</dt>
                <dd>{response.reasoning.cache}</dd>
              </div>
            )}
          </dl>
          {response.reasoning.nodes_failed?.map((f) => (
            <p key={f.node} className="error">
              Source {f.node} did not answer: {f.reason}
            </p>
          ))}
        </details>
      )}
      {response.items.length === 0 && <p className="notice">Nothing matched. Try other words, or fewer filters.</p>}
      <ol className="results">
        {shown.map(({ item, alsoIn }) => (
          <ResultItem
            key={`${item.source_node}:${item.id}`}
            item={item}
            terms={terms}
            now={now}
            sourceName={sourceName(item.source_node, names)}
            alsoIn={alsoIn.map((n) => sourceName(n, names))}
          />
        ))}
      </ol>
      <p className="muted small wrap">
        Query hash <code>{response.query_hash}</code>
      </p>
    </section>
  );
}

function ResultItem({ item, terms, now, sourceName, alsoIn }: { item: FederatedItem; terms: string[]; now: Date; sourceName: string; alsoIn: string[] }) {
  const m = item.metadata;
  const title = str(m.title) ?? item.id;
  const documentId = str(m.document_id) ?? item.id;
  const timestamp = str(m.timestamp) ?? str(m.updated_at);
  const url = str(m.url);
  const translated = item.federation_confidence < 0.999;
  return (
    <li className={`result${item.suppressed_by_tombstone ? ' tombstoned' : ''}`} data-testid="result">
      <div className="result-head">
        <SourceIcon type={str(m.connector_type)} />
        <h3>
          <Link href={`/documents/${encodeURIComponent(documentId)}`}>
            <Highlighted segments={highlightSegments(title, terms)} />
          </Link>
        </h3>
      </div>
      <p className="snippet">
        <Highlighted segments={highlightSegments(makeSnippet(looksLikeMarkdown(item.content, str(m.document_type)) ? stripMarkdown(item.content) : item.content, terms), terms)} />
      </p>
      <div className="meta">
        <span title={`source id: ${item.source_node}`}>{sourceName}</span>
        {alsoIn.length > 0 && <span data-testid="also-in">also in: {alsoIn.join(', ')}</span>}
        {str(m.author) && <span>by {str(m.author)}</span>}
        {timestamp && (
          <time dateTime={timestamp} title={timestamp}>
            {relativeTime(timestamp, now)}
          </time>
        )}
        <Badge tone={item.temporal_status === 'recent' ? 'good' : item.temporal_status === 'stale' ? 'warn' : 'neutral'}>{item.temporal_status}</Badge>
        {item.is_critical && <Badge tone="critical">critical</Badge>}
        {item.suppressed_by_tombstone && (
          <Badge tone="bad" title="A forget request covers this document">
            forgotten (tombstone)
          </Badge>
        )}
        {translated && (
          <Badge tone="info" title={`Compared through an embedding translation (federation_confidence ${item.federation_confidence.toFixed(2)}, band ${confidenceBand(item.federation_confidence)})`}>
            matched across models · fit {item.federation_confidence.toFixed(2)}
          </Badge>
        )}
        <span className="muted" title={`relevance_score ${item.relevance_score.toFixed(3)} · semantic_similarity ${item.semantic_similarity.toFixed(3)}`}>
          match {item.relevance_score.toFixed(2)} · meaning {item.semantic_similarity.toFixed(2)}
        </span>
        {url && <SourceLink url={url}>Open in source</SourceLink>}
      </div>
      {item.reasoning !== undefined && item.reasoning !== null && (
        <details className="reasoning">
          <summary>Why this result?</summary>
          <Reasoning value={item.reasoning} />
        </details>
      )}
    </li>
  );
}

function Reasoning({ value }: { value: unknown }) {
  if (typeof value === 'string') return <p>{value}</p>;
  if (Array.isArray(value))
    return (
      <ul>
        {value.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a static list
          <li key={i}>{typeof v === 'string' ? v : JSON.stringify(v)}</li>
        ))}
      </ul>
    );
  if (isRecord(value))
    return (
      <dl className="kv">
        {Object.entries(value).map(([k, v]) => (
          <div key={k}>
            <dt>{k.replace(/_/g, ' ')}</dt>
            <dd>{formatValue(v)}</dd>
          </div>
        ))}
      </dl>
    );
  return <p>{String(value)}</p>;
}

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.length ? v.map(formatValue).join(', ') : 'none';
  if (isRecord(v)) {
    return Object.entries(v)
      .map(([k, x]) => `${k.replace(/_/g, ' ')}: ${formatValue(x)}`)
      .join(' · ');
  }
  return String(v);
}
