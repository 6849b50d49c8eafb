// Parts of the Upload page: the column mapping of a CSV (or mapped JSONL) file and the result summary.
import type { ImportResult } from '../api.ts';
import { Field } from '../components/ui.tsx';
import { Link } from '../router.tsx';

export interface Mapping {
  readonly id: string;
  readonly title: string;
  readonly text: readonly string[];
  readonly url: string;
  readonly author: string;
  readonly date: string;
}

const SINGLE: readonly { key: Exclude<keyof Mapping, 'text'>; label: string; none: string }[] = [
  { key: 'id', label: 'Identifier column', none: 'Row number' },
  { key: 'title', label: 'Title column', none: 'The first column' },
  { key: 'url', label: 'Link column', none: 'None' },
  { key: 'author', label: 'Author column', none: 'None' },
  { key: 'date', label: 'Last-updated column', none: 'None' },
];

/** Which column is what; text columns unticked = every column not used elsewhere, as "Column: value" lines. */
export function ColumnMapping({ columns, mapping, onChange }: { columns: readonly string[]; mapping: Mapping; onChange: (m: Mapping) => void }) {
  const toggle = (c: string) => onChange({ ...mapping, text: mapping.text.includes(c) ? mapping.text.filter((x) => x !== c) : [...mapping.text, c] });
  return (
    <fieldset data-testid="column-mapping">
      <legend>Columns ({columns.length} found on the first line)</legend>
      <div className="grid">
        {SINGLE.map((s) => (
          <Field key={s.key} label={s.label}>
            {(id) => (
              <select id={id} value={mapping[s.key]} onChange={(e) => onChange({ ...mapping, [s.key]: e.target.value })}>
                <option value="">{s.none}</option>
                {columns.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ))}
      </div>
      <fieldset>
        <legend>Text to search (none ticked: every other column)</legend>
        {columns.map((c) => (
          <label key={c} className="check">
            <input type="checkbox" checked={mapping.text.includes(c)} onChange={() => toggle(c)} /> {c}
          </label>
        ))}
      </fieldset>
    </fieldset>
  );
}

export function SkippedFiles({ skipped }: { skipped: readonly { path: string; reason: string }[] }) {
  return (
    <details open={skipped.length <= 10} data-testid="skipped-files">
      <summary>
        {skipped.length} file{skipped.length === 1 ? '' : 's'} skipped
      </summary>
      <ul>
        {skipped.map((s) => (
          <li key={s.path}>
            <code>{s.path}</code>: {s.reason}
          </li>
        ))}
      </ul>
    </details>
  );
}

export function ImportSummary({ summary, sourceName, sourceId }: { summary: ImportResult; sourceName: string; sourceId: string }) {
  return (
    <section className="card" aria-labelledby="result-h" data-testid="import-result">
      <h2 id="result-h">Added to “{sourceName}”</h2>
      <p>
        Read as a <strong>{summary.kind}</strong>: <strong>{summary.documents.toLocaleString('en-US')}</strong> documents — {summary.added.toLocaleString('en-US')} new,{' '}
        {summary.updated.toLocaleString('en-US')} changed, {summary.unchanged.toLocaleString('en-US')} already there unchanged.
      </p>
      {summary.notes.length > 0 && (
        <ul className="muted small">
          {summary.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {summary.skipped.length > 0 ? <SkippedFiles skipped={summary.skipped} /> : <p className="muted small">No file was skipped.</p>}
      <p className="row">
        <Link href="/search">Search them</Link>
        <Link href={`/connectors/${encodeURIComponent(sourceId)}`}>Open the source</Link>
      </p>
    </section>
  );
}
