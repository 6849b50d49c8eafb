import { useState } from 'react';
import { apiFile, call, type OperationResponse, type operations } from '../api.ts';
import { BarChart, StackedDailyChart } from '../components/charts.tsx';
import { ErrorBox, Field, Loading, PageTitle, TableSection } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import {
  dayRange,
  FILTER_KEYS,
  type FilterKey,
  filtersFromQuery,
  filtersToQuery,
  formatCount,
  formatUsd,
  NONE,
  pivotDaily,
  RULE_LABELS,
  ruleLabel,
  type UsageFilters,
  usageQuery,
} from '../lib/ai-usage.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { useSession } from '../session.tsx';

type UsageAnswer = OperationResponse<'getAiUsage'>;
type UsageRow = UsageAnswer['rows'][number];
type Totals = UsageAnswer['totals'];
type Finding = OperationResponse<'getAiUsageFindings'>['findings'][number];
type Connector = OperationResponse<'getConnectors'>['connectors'][number];
type UsageQuery = NonNullable<OperationQuery<'getAiUsage'>>;
type Rule = Finding['rule'];

/** The rule filter from the address bar, if it names a rule the service knows (else no filter). */
function knownRule(rule: string): Rule | undefined {
  return Object.hasOwn(RULE_LABELS, rule) ? (rule as Rule) : undefined;
}

const FILTER_LABELS: Record<FilterKey, string> = { provider: 'Provider', user: 'User', model: 'Model', api_key: 'API key' };
const TOP_MODELS = 5;
const TOP_BARS = 10;
const tokens = (r: UsageRow) => r.input_tokens + r.output_tokens;

type OperationQuery<O extends keyof operations> = operations[O]['parameters']['query'];

function usage(group_by: string, q: UsageQuery, signal: AbortSignal, extra: UsageQuery = {}) {
  return call((c) => c.GET('/v1/ai-usage', { signal, params: { query: { ...q, ...extra, group_by, limit: 50_000 } } }));
}

export function AiUsagePage() {
  const session = useSession();
  if (!session.can('ai_usage:read')) {
    return (
      <>
        <PageTitle>AI usage</PageTitle>
        <div className="notice" role="status">
          AI usage is sensitive: seeing it needs the <code>ai_usage:read</code> permission (an admin has it). Your key or role does not have it; ask an
          administrator for a key with <code>ai_usage:read</code>.
        </div>
      </>
    );
  }
  return <AiUsageView />;
}

function AiUsageView() {
  const session = useSession();
  const { search } = useLocation();
  const filters = filtersFromQuery(search, new Date());
  const fkey = filtersToQuery(filters);
  const q = usageQuery(filters);
  const qkey = JSON.stringify(q);
  const setFilters = (next: Partial<UsageFilters>) => navigate(`/ai-usage?${filtersToQuery({ ...filters, ...next })}`, { replace: true, scroll: false });

  // Anything at all, ever: the empty state's question (and, for a connector reader, whether an llm_providers connector exists).
  const anything = useLoad(async (signal) => {
    const all = await call((c) => c.GET('/v1/ai-usage', { signal }));
    let connectors: Connector[] | null = null;
    if (all.totals.requests + all.totals.input_tokens + all.totals.output_tokens + all.totals.cost_usd === 0 && session.can('connector:read')) {
      const [list, catalog] = await Promise.all([
        call((c) => c.GET('/v1/connectors', { signal })),
        call((c) => c.GET('/v1/connectors/catalog', { signal })),
      ]);
      const llm = new Set(catalog.connectors.filter((c) => c.group === 'llm_providers').map((c) => c.connector_type));
      connectors = list.connectors.filter((c) => llm.has(c.connector_type));
    }
    return { empty: all.totals.requests + all.totals.input_tokens + all.totals.output_tokens + all.totals.cost_usd === 0, connectors };
  }, []);

  const data = useLoad(
    async (signal) => {
      const [spend, toks, users, keys] = await Promise.all([
        usage('day,provider', q, signal),
        usage('day,model', q, signal, { kind: 'usage' }),
        usage('user', q, signal),
        usage('api_key', q, signal),
      ]);
      return { spend, toks, users, keys };
    },
    [qkey],
  );
  // The filters' choices: what the chosen days hold, whatever the other filters say.
  const options = useLoad(
    async (signal) => {
      const range = { from: filters.from, to: filters.to };
      const answers = await Promise.all(FILTER_KEYS.map((k) => usage(k, range, signal)));
      return Object.fromEntries(FILTER_KEYS.map((k, i) => [k, (answers[i]?.rows ?? []).map((r) => r[k]).filter((v): v is string => typeof v === 'string').sort()])) as Record<FilterKey, string[]>;
    },
    [filters.from, filters.to],
  );
  const findings = useLoad(
    (signal) => call((c) => c.GET('/v1/ai-usage/findings', { signal, params: { query: { rule: knownRule(filters.rule), provider: filters.provider || undefined } } })),
    [filters.rule, filters.provider],
  );

  const [downloadNote, setDownloadNote] = useState('');
  const download = useAction(async () => {
    const { blob, filename } = await apiFile('/v1/ai-usage', { query: { ...q, group_by: 'day,provider,model,user,api_key', limit: 50_000, format: 'csv' }, accept: 'text/csv' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = filename ?? 'ai-usage.csv';
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setDownloadNote(`Downloaded ${a.download}.`);
  });

  const days = dayRange(filters.from, filters.to);
  const filtered = FILTER_KEYS.some((k) => filters[k]);

  if (anything.loading && !anything.data) return <Loading label="Loading AI usage…" />;
  if (anything.data?.empty) {
    return (
      <>
        <PageTitle>AI usage</PageTitle>
        <EmptyGuide connectors={anything.data.connectors} canWrite={session.can('connector:write')} />
      </>
    );
  }

  return (
    <>
      <PageTitle
        actions={
          <button type="button" onClick={() => void download.run()} disabled={download.pending}>
            {download.pending ? 'Preparing CSV…' : 'Download CSV'}
          </button>
        }
      >
        AI usage
      </PageTitle>
      <ErrorBox error={anything.error} />
      <ErrorBox error={download.error} title="The CSV download failed" />
      <p className="sr-only" aria-live="polite">
        {downloadNote}
      </p>
      <form className="card filters ai-filters" aria-label="Filter AI usage" onSubmit={(e) => e.preventDefault()}>
        <Field label="From">
          {(id) => <input id={id} type="date" value={filters.from} max={filters.to} onChange={(e) => e.target.value && setFilters({ from: e.target.value })} />}
        </Field>
        <Field label="To">
          {(id) => <input id={id} type="date" value={filters.to} min={filters.from} onChange={(e) => e.target.value && setFilters({ to: e.target.value })} />}
        </Field>
        {FILTER_KEYS.map((k) => (
          <Field key={k} label={FILTER_LABELS[k]}>
            {(id) => (
              <select id={id} value={filters[k]} onChange={(e) => setFilters({ [k]: e.target.value })}>
                <option value="">All</option>
                {/* a value from a shared link that these days do not hold stays selectable */}
                {[...new Set([...(options.data?.[k] ?? []), ...(filters[k] ? [filters[k]] : [])])].map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ))}
        <div className="row ai-filter-actions">
          <button type="button" className="secondary small" onClick={() => setFilters({ from: addDaysFromToday(-29), to: addDaysFromToday(0), provider: '', user: '', model: '', api_key: '' })}>
            Last 30 days, no filters
          </button>
        </div>
      </form>
      <ErrorBox error={data.error} />
      {data.loading && !data.data && <Loading />}
      {data.data && (
        <div aria-busy={data.loading} data-view={fkey}>
          <Totals totals={data.data.spend.totals} from={filters.from} to={filters.to} filtered={filtered} />
          <StackedDailyChart
            id="chart-spend"
            title="Spend per day by provider"
            days={days}
            series={pivotDaily(data.data.spend.rows, days, 'provider', (r) => r.cost_usd)}
            unit="usd"
            axisLabel="Spend (USD)"
            seriesLabel="Provider"
          />
          <StackedDailyChart
            id="chart-tokens"
            title={`Tokens per day by model (top ${TOP_MODELS} and other)`}
            days={days}
            series={pivotDaily(data.data.toks.rows, days, 'model', tokens, TOP_MODELS)}
            unit="tokens"
            axisLabel="Tokens (input + output)"
            seriesLabel="Model"
          />
          <div className="chart-pair">
            <TopBars id="chart-users" what="users" nameLabel="User" rows={data.data.users.rows} pick={(r) => r.user} />
            <TopBars id="chart-keys" what="API keys" nameLabel="API key" rows={data.data.keys.rows} pick={(r) => r.api_key} />
          </div>
        </div>
      )}
      <Findings filters={filters} setRule={(rule) => setFilters({ rule })} answer={findings.data?.findings} error={findings.error} loading={findings.loading} />
    </>
  );
}

function addDaysFromToday(n: number): string {
  return new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
}

function Totals({ totals, from, to, filtered }: { totals: Totals; from: string; to: string; filtered: boolean }) {
  return (
    <section className="card" aria-label="Totals">
      <dl className="kv totals">
        <div>
          <dt>Spend</dt>
          <dd>{formatUsd(totals.cost_usd, true)}</dd>
        </div>
        <div>
          <dt>Requests</dt>
          <dd>{totals.requests.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Input tokens</dt>
          <dd title={totals.input_tokens.toLocaleString('en-US')}>{formatCount(totals.input_tokens)}</dd>
        </div>
        <div>
          <dt>Output tokens</dt>
          <dd title={totals.output_tokens.toLocaleString('en-US')}>{formatCount(totals.output_tokens)}</dd>
        </div>
      </dl>
      <p className="muted small">
        {from} to {to} (UTC){filtered ? ', filtered' : ''}. Providers report spend in US dollars, often apart from tokens: spend by model or user appears only where
        the provider&apos;s cost report names them.
      </p>
    </section>
  );
}

/** Top users or keys by spend; by tokens when the provider's cost report names none of them. */
function TopBars({ id, what, nameLabel, rows, pick }: { id: string; what: string; nameLabel: string; rows: readonly UsageRow[]; pick: (r: UsageRow) => string | null | undefined }) {
  const named = rows.filter((r) => pick(r));
  const bySpend = named.some((r) => r.cost_usd > 0);
  const bars = named
    .map((r) => ({ label: pick(r) ?? NONE, value: bySpend ? r.cost_usd : tokens(r) }))
    .filter((b) => b.value > 0)
    .sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))
    .slice(0, TOP_BARS);
  const unattributed = rows.filter((r) => !pick(r)).reduce((a, r) => a + (bySpend ? r.cost_usd : tokens(r)), 0);
  const note = [
    !bySpend && named.length > 0 ? `The providers' cost reports name no ${what} here, so they are ranked by tokens.` : '',
    unattributed > 0 ? `${bySpend ? formatUsd(unattributed, true) : `${formatCount(unattributed)} tokens`} not attributed to any ${nameLabel.toLowerCase()}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <BarChart
      id={id}
      title={`Top ${what} by ${bySpend ? 'spend' : 'tokens'}`}
      note={note || undefined}
      bars={bars}
      unit={bySpend ? 'usd' : 'tokens'}
      axisLabel={bySpend ? 'Spend (USD)' : 'Tokens (input + output)'}
      nameLabel={nameLabel}
    />
  );
}

function findingDetail(f: Finding): string {
  const d = f.details;
  const num = (k: string) => (typeof d[k] === 'number' ? (d[k] as number) : null);
  if (f.rule === 'spend_spike') {
    const v = num('cost_usd');
    const med = num('trailing_median');
    return v !== null && med !== null ? `${formatUsd(v, true)} against a 14-day median of ${formatUsd(med, true)}` : '';
  }
  if (f.rule === 'token_spike') {
    const v = num('tokens');
    const med = num('trailing_median');
    return v !== null && med !== null ? `${formatCount(v)} tokens against a 14-day median of ${formatCount(med)}` : '';
  }
  if (typeof d.last_seen === 'string') return `last used ${d.last_seen}`;
  return '';
}

function Findings(props: { filters: UsageFilters; setRule(rule: string): void; answer: readonly Finding[] | undefined; error: unknown; loading: boolean }) {
  const { filters, answer } = props;
  return (
    <section className="card" aria-labelledby="findings-title">
      <div className="row spread">
        <h2 id="findings-title">Findings</h2>
        <Field label="Rule">
          {(id) => (
            <select id={id} value={filters.rule} onChange={(e) => props.setRule(e.target.value)}>
              <option value="">All rules</option>
              {Object.entries(RULE_LABELS).map(([rule, label]) => (
                <option key={rule} value={rule}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <p className="muted small">
        Something new or unsanctioned, or a spike, newest detection first{filters.provider ? ` (${filters.provider} only)` : ''}. The allow-list and the spike factor are
        the tenant&apos;s policy (<code>PUT /v1/ai-usage/policy</code>); each finding is also an audit event <code>ai_usage.finding</code>.
      </p>
      <TableSection
        error={props.error}
        loading={props.loading}
        rows={answer}
        empty={<p className="muted">No findings{filters.rule ? ` for “${ruleLabel(filters.rule)}”` : ''}.</p>}
        busy={props.loading}
      >
        {(rows) => (
          <table data-testid="findings">
            <thead>
              <tr>
                <th scope="col">Finding</th>
                <th scope="col">Provider</th>
                <th scope="col">Subject</th>
                <th scope="col">First seen</th>
                <th scope="col">Detected (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((f) => (
                <tr key={f.finding_id} data-rule={f.rule}>
                  <td>
                    <span className="rule" title={`rule: ${f.rule}`}>
                      {ruleLabel(f.rule)}
                    </span>
                    {findingDetail(f) && <div className="muted small">{findingDetail(f)}</div>}
                  </td>
                  <td>{f.provider}</td>
                  <td className="wrap">
                    <code>{f.subject}</code>
                  </td>
                  <td>{f.first_seen ? <time dateTime={f.first_seen}>{f.first_seen}</time> : '—'}</td>
                  <td>
                    <time dateTime={f.detected_at}>{f.detected_at.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, '')}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </TableSection>
    </section>
  );
}

function EmptyGuide({ connectors, canWrite }: { connectors: Connector[] | null; canWrite: boolean }) {
  return (
    <section className="card empty-guide" aria-labelledby="empty-title">
      <h2 id="empty-title">No AI usage yet</h2>
      {connectors && connectors.length > 0 ? (
        <p>
          {connectors.length === 1 ? 'An AI-provider connector is' : `${connectors.length} AI-provider connectors are`} set up (
          {connectors.map((c, i) => (
            <span key={c.connector_id}>
              {i > 0 && ', '}
              <Link href={`/connectors/${encodeURIComponent(c.connector_id)}`}>{c.display_name}</Link> <span className="muted">({c.status})</span>
            </span>
          ))}
          ) but no usage has been read yet. It appears here after the connector&apos;s first completed sync.
        </p>
      ) : (
        <p>This page shows who uses which AI provider, model and key, what it costs, and what is new or unsanctioned. It needs a connector to an AI provider:</p>
      )}
      <ol>
        <li>
          Create an <strong>admin key</strong> at the provider: an OpenAI organization Admin API key, or an Anthropic Admin API key (<code>sk-ant-admin…</code>). An ordinary key
          cannot read the organization&apos;s usage.
        </li>
        <li>
          Under{' '}
          {canWrite ? <Link href="/connectors">Connectors</Link> : <strong>Connectors</strong>}, add an <strong>OpenAI</strong>, <strong>Anthropic</strong> or other AI-provider connector
          with that key{canWrite ? '' : ' (an administrator or a key with connector:write can)'}.
        </li>
        <li>After its first sync, usage, spend and findings appear here. The first sync is the baseline: what it finds is not reported as new.</li>
      </ol>
    </section>
  );
}
