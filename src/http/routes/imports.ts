import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { documentSourceFor } from '../../connectors/imports.ts';
import { type DocumentInput, MAX_BATCH_DOCUMENTS, upsertDocuments } from '../../documents/index.ts';
import type { ColumnMapping } from '../../documents/imports/index.ts';
import { AppError, Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { requirePushTarget } from '../../connectors/index.ts';

/** The largest upload `POST /v1/connectors/{id}/imports` takes (a zip is read into memory whole). */
export const IMPORT_MAX_BYTES = 64 * 1024 * 1024;

/** What the upload is: from `format`, else its content type, else its file name's extension. */
export type ImportFormat = 'zip' | 'csv' | 'jsonl';

const CONTENT_TYPES: Readonly<Record<string, ImportFormat>> = {
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/x-jsonlines': 'jsonl',
};
const EXTENSIONS: Readonly<Record<string, ImportFormat>> = { '.zip': 'zip', '.csv': 'csv', '.jsonl': 'jsonl', '.ndjson': 'jsonl' };
const ACCEPTED = [...Object.keys(CONTENT_TYPES), 'application/octet-stream'];

const columnName = z.string().trim().min(1).max(200);
const importQuery = z
  .object({
    format: z.enum(['zip', 'csv', 'jsonl']).optional().describe('what the body is; default: from the content type, then from `filename`'),
    filename: z.string().trim().min(1).max(300).optional().describe('the uploaded file\'s name, used in messages and to tell its format'),
    id_column: columnName.optional().describe('CSV/JSONL: the column (field) holding each row\'s id; default: the row number'),
    title_column: columnName.optional().describe('CSV/JSONL: the title column; default: the first column'),
    text_columns: z.string().trim().min(1).max(2000).optional().describe('CSV/JSONL: comma-separated text columns; default: every column not mapped elsewhere'),
    url_column: columnName.optional(),
    author_column: columnName.optional(),
    date_column: columnName.optional().describe('CSV/JSONL: the column holding each row\'s last update (ISO 8601 or any date Date.parse reads)'),
    slack_url: z.string().url().max(500).optional().describe('Slack export: the workspace URL (https://acme.slack.com) for links to messages'),
  })
  .strict();

const skippedFile = z.object({ path: z.string(), reason: z.string() });
const importResult = z.object({
  kind: z.string().describe('what was recognised: Slack export, export archive, CSV file, JSONL file'),
  documents: z.number().int().describe('documents read from the upload'),
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  skipped: z.array(skippedFile).describe('files of an archive left out, with why (no parser for the type, unreadable)'),
  notes: z.array(z.string()).describe('what the reader reported (channels, users and messages of a Slack export; files read)'),
  embed_job_ids: z.array(z.string()).describe('the jobs making vectors for the changed documents'),
});

function formatOf(query: z.infer<typeof importQuery>, contentType: string): ImportFormat {
  if (query.format) return query.format;
  const byType = CONTENT_TYPES[contentType];
  if (byType) return byType;
  const byName = query.filename ? EXTENSIONS[path.extname(query.filename).toLowerCase()] : undefined;
  if (byName) return byName;
  throw Errors.validation('cannot tell what the upload is: send it as application/zip, text/csv or application/x-ndjson, or name it in `format` or in `filename` (.zip, .csv, .jsonl)', [
    { path: 'querystring.format', message: 'required for this content type and file name' },
  ]);
}

function mappingOf(q: z.infer<typeof importQuery>): ColumnMapping {
  const text = q.text_columns
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return { id: q.id_column, title: q.title_column, text: text?.length ? text : undefined, url: q.url_column, author: q.author_column, date: q.date_column };
}

/** `skipped x: why` notes of an archive import, as structured entries; the other notes stay notes. */
export function splitNotes(notes: readonly string[]): { skipped: { path: string; reason: string }[]; notes: string[] } {
  const skipped: { path: string; reason: string }[] = [];
  const rest: string[] = [];
  for (const n of notes) {
    const m = /^skipped (.+?): (.+)$/.exec(n);
    if (m?.[1] && m[2]) skipped.push({ path: m[1], reason: m[2] });
    else rest.push(n);
  }
  return { skipped, notes: rest };
}

/**
 * Reads an uploaded export with the same readers as `atrium ingest` (Slack export zip, Notion/Confluence zip, CSV
 * with mapped columns, JSONL) and stores its documents in a push (`api`) connector. Checked whole first: one invalid
 * document stores nothing.
 */
async function importUpload(deps: AppDeps, input: { tenantId: string; connectorId: string; body: Buffer; format: ImportFormat; query: z.infer<typeof importQuery> }) {
  const shown = input.query.filename ?? `the uploaded ${input.format === 'zip' ? 'zip' : input.format.toUpperCase()} file`;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-upload-'));
  const file = path.join(dir, `upload.${input.format}`);
  // Messages of the readers name the file they read: the user knows it by its own name.
  const tell = (err: unknown) => (err instanceof Error ? err.message : String(err)).split(file).join(shown);
  try {
    await fs.writeFile(file, input.body);
    const source = await documentSourceFor(file, { mapping: mappingOf(input.query), teamUrl: input.query.slack_url }).catch((err: unknown) => {
      throw Errors.validation(tell(err));
    });
    if (!source) throw Errors.validation(`${shown}: not an export Atrium reads`);
    const total = await source.check(() => undefined).catch((err: unknown) => {
      throw Errors.validation(tell(err));
    });
    const { skipped, notes } = splitNotes(source.notes().map((n) => n.split(file).join(shown)));
    if (total === 0) {
      throw new AppError('invalid_request', 400, `${shown}: nothing to import (${skipped.length} file${skipped.length === 1 ? '' : 's'} skipped)`, {
        details: { problems: [{ path: 'body', message: 'no documents in the upload' }], skipped, notes },
      });
    }
    const out = { kind: source.kind, documents: total, added: 0, updated: 0, unchanged: 0, skipped, notes, embed_job_ids: [] as string[] };
    let batch: DocumentInput[] = [];
    const flush = async () => {
      const r = await upsertDocuments(deps, { tenantId: input.tenantId, connectorId: input.connectorId, documents: batch, requireSource: true });
      out.added += r.added;
      out.updated += r.updated;
      out.unchanged += r.unchanged;
      if (r.embed_job_id) out.embed_job_ids.push(r.embed_job_id);
      batch = [];
    };
    for await (const d of source.documents()) {
      batch.push(d);
      if (batch.length >= MAX_BATCH_DOCUMENTS) await flush();
    }
    if (batch.length) await flush();
    return out;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export async function importRoutes(app: App, deps: AppDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // Only this route takes raw bytes; every other content type is refused here with the list of accepted ones.
    scope.addContentTypeParser(ACCEPTED, { parseAs: 'buffer', bodyLimit: IMPORT_MAX_BYTES }, (_req, body, done) => done(null, body));
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1 }, (req, _body, done) => {
      done(
        new AppError('unsupported_media_type', 415, `content type '${String(req.headers['content-type'] ?? '')}' is not an upload Atrium reads: send ${ACCEPTED.join(', ')}`),
        undefined,
      );
    });
    scope.post(
      '/v1/connectors/:connector_id/imports',
      {
        config: { permission: 'connector:write' },
        bodyLimit: IMPORT_MAX_BYTES,
        schema: {
          summary: 'Upload an export (Slack export zip, Notion/Confluence zip, CSV, JSONL) into a push (api) connector',
          description:
            `The body is the file itself (at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB; 413 above), sent as application/zip, text/csv or application/x-ndjson ` +
            '(or application/octet-stream with `format` or `filename`). Read with the same readers as `atrium ingest`; checked whole first, so one invalid ' +
            'document stores nothing (400 naming it). A file that is not a readable zip, or holds nothing to import, is a 400. Idempotent on each document\'s id.',
          tags: ['documents'],
          params: z.object({ connector_id: z.string().min(1).max(200) }),
          querystring: importQuery,
          response: { 200: importResult },
        },
      },
      async (request) => {
        const { tenantId } = principalOf(request);
        await requirePushTarget(deps.db, tenantId, request.params.connector_id);
        const body = request.body;
        if (!Buffer.isBuffer(body) || body.length === 0) throw Errors.validation('the request body is empty: send the file itself as the body', [{ path: 'body', message: 'empty' }]);
        const contentType = String(request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
        const format = formatOf(request.query, contentType);
        return importUpload(deps, { tenantId, connectorId: request.params.connector_id, body, format, query: request.query });
      },
    );
  });
}
