import fs from 'node:fs/promises';
import path from 'node:path';
import { slackExportDocuments, slackExportRoot } from './slack/export.ts';
import { jsonlValues } from '../documents/eval/beir.ts';
import { jsonlDocument } from '../documents/files/index.ts';
import { archiveDocuments, type ColumnMapping, csvDocuments, openArchive, recordDocuments } from '../documents/imports/index.ts';
import { type DocumentInput, documentInputSchema } from '../documents/index.ts';

/**
 * What `atrium ingest` reads as a list of documents (everything but a plain folder, which is scanned incrementally
 * as a `filesystem` source): checked whole before anything is stored, then stored or pushed in batches.
 */
export interface DocumentSource {
  /** What was recognised, for the progress lines: "Slack export", "CSV file"… */
  readonly kind: string;
  /** Reads and checks every document (one bad document refuses the whole import); answers how many there are. */
  check(onProgress: (n: number) => void): Promise<number>;
  /** The checked documents, in order. */
  documents(): AsyncIterable<DocumentInput>;
  /** Lines to print after the check (what was left out and why). */
  notes(): readonly string[];
}

/** Invalid documents listed in an import's error before the rest are only counted. */
const MAX_LISTED_ERRORS = 20;

function refuse(label: string, bad: readonly string[], total: number): never {
  const more = total > bad.length ? `\n  … and ${total - bad.length} more` : '';
  throw new Error(`${label}: ${total} invalid document${total > 1 ? 's' : ''}, nothing stored:\n${bad.join('\n')}${more}`);
}

/** A source whose documents are read into memory (exports and CSV files are read whole anyway). */
function materialized(kind: string, label: string, read: () => AsyncIterable<DocumentInput> | Promise<Iterable<DocumentInput>>, notes: () => string[] = () => []): DocumentSource {
  let docs: DocumentInput[] | null = null;
  return {
    kind,
    async check(onProgress) {
      const out: DocumentInput[] = [];
      const bad: string[] = [];
      let invalid = 0;
      const seen = new Set<string>();
      for await (const d of await read()) {
        const parsed = documentInputSchema.safeParse(d);
        if (!parsed.success) {
          if (++invalid <= MAX_LISTED_ERRORS) bad.push(`  ${d.external_id}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        } else if (seen.has(parsed.data.external_id)) {
          if (++invalid <= MAX_LISTED_ERRORS) bad.push(`  ${d.external_id}: the same id twice (name an id column with --id-column)`);
        } else {
          seen.add(parsed.data.external_id);
          out.push(parsed.data);
        }
        onProgress(out.length + invalid);
      }
      if (invalid > 0) refuse(label, bad, invalid);
      docs = out;
      return out.length;
    },
    async *documents() {
      if (!docs) throw new Error('check() first');
      yield* docs;
    },
    notes,
  };
}

function jsonlSource(file: string): DocumentSource {
  return {
    kind: 'JSONL file',
    async check(onProgress) {
      let n = 0;
      let bad = 0;
      const listed: string[] = [];
      for await (const r of jsonlValues(file)) {
        const d = 'error' in r ? { ok: false as const, message: r.error } : jsonlDocument(r.value);
        if (d.ok) n++;
        else if (++bad <= MAX_LISTED_ERRORS) listed.push(`  line ${r.line}: ${d.message}`);
        onProgress(n + bad);
      }
      if (bad === 0) return n;
      const more = bad > listed.length ? `\n  … and ${bad - listed.length} more` : '';
      const hint = listed.some((l) => l.includes('unknown field')) ? '\n  (lines with other fields: map them with --id-column, --title-column, --text-column…)' : '';
      throw new Error(`${file}: ${bad} invalid line${bad > 1 ? 's' : ''}, nothing stored:\n${listed.join('\n')}${more}${hint}`);
    },
    async *documents() {
      for await (const r of jsonlValues(file)) {
        const d = 'error' in r ? { ok: false as const, message: r.error } : jsonlDocument(r.value);
        // Only when the file changed since it was checked.
        if (!d.ok) throw new Error(`${file}:${r.line}: ${d.message}`);
        yield d.document;
      }
    },
    notes: () => [],
  };
}

const isMapped = (m: ColumnMapping) => Object.values(m).some((v) => (Array.isArray(v) ? v.length > 0 : v !== undefined));

async function isSlackExportFolder(dir: string): Promise<boolean> {
  const has = (name: string) =>
    fs
      .stat(path.join(dir, name))
      .then((s) => s.isFile())
      .catch(() => false);
  return (await has('channels.json')) && (await has('users.json'));
}

/**
 * The document source `target` is, or null for a plain folder (scanned as a `filesystem` source):
 * - a Slack export, zipped or unpacked (`channels.json` beside `users.json`);
 * - a zip of exported pages (Notion "Markdown & CSV", Confluence HTML, or any Markdown/HTML/text/PDF/DOCX files);
 * - a CSV file (columns mapped by `mapping`);
 * - a JSONL file of documents (strict push-API fields, or any fields mapped by `mapping`).
 */
export async function documentSourceFor(target: string, opts: { mapping: ColumnMapping; teamUrl?: string }): Promise<DocumentSource | null> {
  const st = await fs.stat(target);
  const ext = path.extname(target).toLowerCase();
  if (st.isDirectory()) {
    if (!(await isSlackExportFolder(target))) return null;
  } else if (!['.zip', '.csv', '.jsonl', '.json'].includes(ext)) {
    throw new Error(`${target}: expected a folder, a .zip export (Slack, Notion, Confluence), a .csv file or a .jsonl file of documents`);
  }
  if (ext === '.csv') {
    return materialized('CSV file', target, async () => csvDocuments(await fs.readFile(target, 'utf8'), { mapping: opts.mapping }));
  }
  if (ext === '.jsonl' || ext === '.json') {
    if (!isMapped(opts.mapping)) return jsonlSource(target);
    return materialized('JSONL file', target, async () => {
      const records: Record<string, unknown>[] = [];
      for await (const r of jsonlValues(target)) {
        if ('error' in r) throw new Error(`${target}:${r.line}: ${r.error}`);
        if (!r.value || typeof r.value !== 'object' || Array.isArray(r.value)) throw new Error(`${target}:${r.line}: not a JSON object`);
        records.push(r.value as Record<string, unknown>);
      }
      return recordDocuments(records, opts.mapping);
    });
  }
  const files = await openArchive(target);
  if (slackExportRoot(files.paths) !== null) {
    let summary = '';
    return materialized(
      'Slack export',
      target,
      () =>
        slackExportDocuments(files, {
          teamUrl: opts.teamUrl,
          onSummary: (s) => {
            summary = `${s.channels} channels, ${s.users} users, ${s.messages} messages${s.skippedMessages ? `, ${s.skippedMessages} entries that are not messages skipped` : ''}${s.unreadable.length ? `; unreadable: ${s.unreadable.join(', ')}` : ''}`;
          },
        }),
      () => (summary ? [summary] : []),
    );
  }
  const skipped: string[] = [];
  let files_ = 0;
  return materialized(
    'export archive',
    target,
    () =>
      archiveDocuments(files, {
        onSummary: (s) => {
          files_ = s.files;
          for (const x of s.skipped.slice(0, MAX_LISTED_ERRORS)) skipped.push(`skipped ${x.path}: ${x.reason}`);
          if (s.skipped.length > MAX_LISTED_ERRORS) skipped.push(`… and ${s.skipped.length - MAX_LISTED_ERRORS} more skipped`);
        },
      }),
    () => [`${files_} files read`, ...skipped],
  );
}
