import { type FormEvent, useState } from 'react';
import { ApiError, call, type ImportOptions, type ImportResult, isRecord, type UploadProgress, uploadImport } from '../api.ts';
import { ErrorBox, Field, Loading, PageTitle, ProgressBar } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { csvHeader, formatBytes, formatOfName, jsonlFields, PUSH_FIELDS, type UploadFormat } from '../lib/upload.ts';
import { Link } from '../router.tsx';
import { ColumnMapping, ImportSummary, type Mapping, SkippedFiles } from './upload-parts.tsx';

const NEW = '__new__';
const EMPTY_MAPPING: Mapping = { id: '', title: '', text: [], url: '', author: '', date: '' };

/** What the service needs besides the bytes: the format and, for CSV and mapped JSONL, which column is what. */
function optionsOf(format: UploadFormat, mapping: Mapping, slackUrl: string): ImportOptions {
  if (format === 'zip') return { format, slack_url: slackUrl || undefined };
  return {
    format,
    id_column: mapping.id || undefined,
    title_column: mapping.title || undefined,
    text_columns: mapping.text.length ? mapping.text.join(',') : undefined,
    url_column: mapping.url || undefined,
    author_column: mapping.author || undefined,
    date_column: mapping.date || undefined,
  };
}

export function UploadPage() {
  const sources = useLoad((signal) => call((c) => c.GET('/v1/connectors', { signal })).then((r) => r.connectors.filter((c) => c.connector_type === 'api')), []);
  const [target, setTarget] = useState('');
  const [newName, setNewName] = useState('Uploads');
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<UploadFormat | ''>('');
  const [columns, setColumns] = useState<string[]>([]);
  const [mapping, setMapping] = useState<Mapping>(EMPTY_MAPPING);
  const [slackUrl, setSlackUrl] = useState('');
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [result, setResult] = useState<{ source: string; sourceName: string; summary: ImportResult } | null>(null);
  const chosen = target || (sources.data?.[0]?.connector_id ?? NEW);

  const pick = async (f: File | null) => {
    setFile(f);
    setResult(null);
    setMapping(EMPTY_MAPPING);
    const fmt = f ? formatOfName(f.name) : null;
    setFormat(fmt ?? '');
    if (!f || (fmt !== 'csv' && fmt !== 'jsonl')) {
      setColumns([]);
      return;
    }
    const head = await f.slice(0, 64 * 1024).text();
    setColumns(fmt === 'csv' ? csvHeader(head) : jsonlFields(head));
  };

  const send = useAction(async () => {
    if (!file || !format) return;
    setResult(null);
    let id = chosen;
    let name = sources.data?.find((s) => s.connector_id === id)?.display_name ?? id;
    if (id === NEW) {
      const created = await call((c) => c.POST('/v1/connectors', { body: { connector_type: 'api', display_name: newName.trim() || 'Uploads', credentials: {}, settings: {} } }));
      id = created.connector_id;
      name = created.display_name;
      setTarget(id);
      sources.reload();
    }
    try {
      const summary = await uploadImport(id, file, optionsOf(format, mapping, slackUrl), setProgress);
      setResult({ source: id, sourceName: name, summary });
      // The destination's document count changed.
      sources.reload();
    } finally {
      setProgress(null);
    }
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send.run();
  };
  // Plain push-API lines need no mapping; lines with other fields are mapped like CSV columns.
  const needsMapping = format === 'csv' || (format === 'jsonl' && columns.some((c) => !PUSH_FIELDS.includes(c)));
  const errorSkipped = send.error instanceof ApiError && isRecord(send.error.details) && Array.isArray(send.error.details.skipped) ? send.error.details.skipped : [];

  return (
    <>
      <PageTitle>Upload files</PageTitle>
      <p className="muted">
        Add an export to Atrium: a Slack export (.zip), a Notion or Confluence export (.zip of pages), a spreadsheet saved as CSV, or a JSONL file of
        documents. The documents go into an upload source of your choice and are searchable once stored.
      </p>
      <ErrorBox error={sources.error} title="Sources could not be listed" />
      {sources.loading && !sources.data && <Loading />}
      {sources.data && (
        <form className="card" onSubmit={submit} aria-labelledby="upload-h">
          <h2 id="upload-h">File and destination</h2>
          <div className="grid">
            <Field label="Add to" hint="Uploads go into a push source; a new one is created if you choose so.">
              {(id, h) => (
                <select id={id} value={chosen} onChange={(e) => setTarget(e.target.value)} aria-describedby={h}>
                  {sources.data?.map((s) => (
                    <option key={s.connector_id} value={s.connector_id}>
                      {s.display_name} ({s.document_count} documents)
                    </option>
                  ))}
                  <option value={NEW}>A new upload source…</option>
                </select>
              )}
            </Field>
            {chosen === NEW && <Field label="New source name">{(id) => <input id={id} value={newName} onChange={(e) => setNewName(e.target.value)} required maxLength={200} />}</Field>}
          </div>
          <Field label="File" hint="At most 64 MB. Larger exports: unpack them and use atrium ingest <folder> on the server.">
            {(id, h) => <input id={id} type="file" accept=".zip,.csv,.jsonl,.ndjson" onChange={(e) => void pick(e.target.files?.[0] ?? null)} aria-describedby={h} />}
          </Field>
          {file && (
            <p className="muted small" data-testid="file-info">
              {file.name}, {formatBytes(file.size)}
            </p>
          )}
          {file && (
            <Field label="What the file is">
              {(id) => (
                <select id={id} value={format} onChange={(e) => setFormat(e.target.value as UploadFormat | '')} required>
                  <option value="">Choose…</option>
                  <option value="zip">An export archive (.zip): Slack, Notion, Confluence, or a folder of pages</option>
                  <option value="csv">A CSV table: one document per row</option>
                  <option value="jsonl">JSONL: one document per line</option>
                </select>
              )}
            </Field>
          )}
          {format === 'zip' && (
            <Field label="Slack workspace address (optional)" hint="For a Slack export: https://yourteam.slack.com, so results link back to each message.">
              {(id, h) => <input id={id} type="url" value={slackUrl} onChange={(e) => setSlackUrl(e.target.value)} placeholder="https://acme.slack.com" aria-describedby={h} />}
            </Field>
          )}
          {needsMapping && columns.length > 0 && <ColumnMapping columns={columns} mapping={mapping} onChange={setMapping} />}
          <ErrorBox error={send.error} title="Upload failed" />
          {errorSkipped.length > 0 && <SkippedFiles skipped={errorSkipped} />}
          <button type="submit" disabled={send.pending || !file || !format}>
            {send.pending ? 'Uploading…' : 'Upload and add'}
          </button>
          {progress && (
            <div className="job" aria-live="polite" data-testid="upload-progress">
              {progress.stage === 'sending' ? (
                <>
                  <p>
                    Sending: {formatBytes(progress.sent)} of {formatBytes(progress.total)}
                  </p>
                  <ProgressBar value={progress.total ? progress.sent / progress.total : 0} label="Upload progress" />
                </>
              ) : (
                <p>
                  <progress aria-label="Reading and storing the documents" /> Reading and storing the documents…
                </p>
              )}
            </div>
          )}
        </form>
      )}
      {result && <ImportSummary summary={result.summary} sourceName={result.sourceName} sourceId={result.source} />}
      <p className="muted small">
        From a terminal instead: <code>./bin/atrium ingest export.zip --source uploads</code> (see <Link href="/connectors">Connectors</Link> for sources that sync by
        themselves).
      </p>
    </>
  );
}
