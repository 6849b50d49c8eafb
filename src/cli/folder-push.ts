import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { OperationRequestBody } from '../../packages/client/src/index.ts';
import { type FolderState, folderStateSchema, SUPPORTED_EXTENSIONS, scanFolder } from '../documents/files/index.ts';
import { createProgress } from '../documents/progress.ts';
import { callService, type Service } from './storage.ts';

/**
 * `ingest <folder>` through a running service (the one holding the data folder, `--url`, or the discovered local one).
 * The folder is scanned here and its files are pushed to an `api` source of the service; what was scanned last time is
 * remembered beside the CLI's other state (`$XDG_STATE_HOME/atrium/folders/`, 0600), one record per service, folder
 * and source, so a second run sends only changed files and deletes the documents of removed ones. Without that record
 * (first run, another machine) every file is sent (the service counts unchanged ones) and nothing is deleted.
 */
const recordSchema = z.object({ connector_id: z.string(), state: folderStateSchema });

type PushedDocument = OperationRequestBody<'postConnectorDocuments'>['documents'][number];
const PUSH_BATCH = 200;

/** The refusal for a folder with nothing Atrium reads (locally and through a service). */
export function nothingToIngest(folder: string, unreadable: string): string {
  return `${folder}: nothing to ingest${unreadable}. A folder is scanned for ${SUPPORTED_EXTENSIONS.join(' ')} files; a Slack export needs channels.json and users.json at its top; zips, CSV and JSONL files are ingested as files`;
}

export function folderRecordFile(env: NodeJS.ProcessEnv, serviceUrl: string, folder: string, source: string | undefined): string {
  const base = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state');
  const id = createHash('sha256').update(`${serviceUrl}\0${folder}\0${source ?? ''}`).digest('hex').slice(0, 24);
  return path.join(base, 'atrium', 'folders', `${id}.json`);
}

async function readRecord(file: string): Promise<z.infer<typeof recordSchema> | null> {
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const r = recordSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

async function writeRecord(file: string, connectorId: string, state: FolderState): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify({ connector_id: connectorId, state }), { mode: 0o600 });
  await fs.rename(tmp, file);
}

/** The source to push into: `--source`, the one remembered for this folder, or an `api` source named after the folder. */
async function resolveSource(service: Service, folder: string, source: string | undefined, remembered: string | undefined, defaultName: string) {
  const { connectors } = await callService(service, (atrium) => atrium.GET('/v1/connectors'));
  const wanted = source ?? remembered;
  const found = wanted ? connectors.find((c) => c.connector_id === wanted) : connectors.find((c) => c.connector_type === 'api' && c.display_name === defaultName);
  if (found) {
    if (found.connector_type !== 'api') throw new Error(`source '${found.connector_id}' is a ${found.connector_type} source: through the service, a folder goes to a push (api) source`);
    return { id: found.connector_id, fresh: found.connector_id !== remembered };
  }
  if (source) throw new Error(`no source '${source}' at ${service.url}: leave out --source to make one for ${folder}`);
  const made = await callService(service, (atrium) => atrium.POST('/v1/connectors', { body: { connector_type: 'api', display_name: defaultName } }));
  return { id: made.connector_id, fresh: true };
}

export async function ingestFolderThroughService(env: NodeJS.ProcessEnv, service: Service, folder: string, source: string | undefined, defaultName: string) {
  const started = Date.now();
  const file = folderRecordFile(env, service.url, folder, source);
  const record = await readRecord(file);
  const scanWith = async (previous: FolderState | null) => {
    const bar = createProgress('scan');
    const r = await scanFolder({ path: folder }, previous, { onProgress: (n) => bar.update(n, null) });
    bar.done(`scan: ${r.upserts.length} files changed, ${r.unchanged} unchanged, ${r.deletes.length} removed`);
    return r;
  };
  let scan = await scanWith(record?.state ?? null);
  if (!record && scan.upserts.length === 0 && scan.unchanged === 0) throw new Error(nothingToIngest(folder, ''));
  const target = await resolveSource(service, folder, source, record?.connector_id, defaultName);
  // A record of another source (deleted and made again) says nothing about what this one holds: send everything.
  if (record && target.fresh) scan = await scanWith(null);
  let added = 0;
  let updated = 0;
  let unchanged = scan.unchanged;
  const bar = createProgress('ingest');
  for (let i = 0; i < scan.upserts.length; i += PUSH_BATCH) {
    const batch = scan.upserts.slice(i, i + PUSH_BATCH) as PushedDocument[];
    const r = await callService(service, (atrium) =>
      atrium.POST('/v1/connectors/{connector_id}/documents', { params: { path: { connector_id: target.id } }, body: { documents: batch } }),
    );
    added += r.added;
    updated += r.updated;
    unchanged += r.unchanged;
    bar.update(Math.min(scan.upserts.length, i + PUSH_BATCH), scan.upserts.length);
  }
  let deleted = 0;
  for (const externalId of scan.deletes) {
    const gone = await callService(service, (atrium) =>
      atrium.DELETE('/v1/connectors/{connector_id}/documents/{external_id}', { params: { path: { connector_id: target.id, external_id: externalId } } }),
    ).then(
      () => true,
      (err: Error & { status?: number }) => {
        if (err.status === 404) return false; // already gone
        throw err;
      },
    );
    if (gone) deleted++;
  }
  bar.done(`ingest: ${scan.upserts.length} files sent to ${service.url}, ${deleted} removed`);
  await writeRecord(file, target.id, scan.state);
  return { source: target.id, tenant: null, added, updated, unchanged, deleted, embedded_chunks: 0, model: null, errors: scan.errors, seconds: (Date.now() - started) / 1000, service: service.url };
}
