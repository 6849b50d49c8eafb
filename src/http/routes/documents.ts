import { z } from 'zod';
import {
  type DocumentsDeps,
  deleteDocuments,
  documentInputSchema,
  getDocument,
  MAX_BATCH_DOCUMENTS,
  passageSchema,
  searchPassages,
  storedDocumentSchema,
  upsertDocuments,
  upsertResultSchema,
} from '../../documents/index.ts';
import { requirePushTarget } from '../../connectors/index.ts';
import { Errors } from '../../platform/errors.ts';
import { getJob } from '../../platform/jobs/index.ts';
import { rangeBound } from '../../platform/time-range.ts';
import type { App } from '../app.ts';
import { can } from '../../access/index.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { readerView } from '../view.ts';

const connectorParams = z.object({ connector_id: z.string().min(1).max(200) });

const jobRecord = z.object({
  job_id: z.string(),
  kind: z.string().describe('e.g. documents.embed'),
  status: z.string().describe('queued, running, completed, failed or cancelled'),
  progress: z.number().describe('0..1'),
  done: z.number().nullable().describe('items done so far (documents.embed: chunks), when the job reports it'),
  total: z.number().nullable(),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  result: z.unknown().describe('what a completed job reported; null before'),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});


// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function documentRoutes(app: App, deps: AppDeps): Promise<void> {
  const docDeps: DocumentsDeps = deps;

  app.post(
    '/v1/connectors/:connector_id/documents',
    {
      config: { permission: 'connector:write' },
      // Checked before validation so an oversized batch is a 413, not a list of 400 problems.
      preValidation: async (request) => {
        const body = request.body as { documents?: unknown } | null;
        if (body && Array.isArray(body.documents) && body.documents.length > MAX_BATCH_DOCUMENTS) {
          throw Errors.payloadTooLarge(`${body.documents.length} documents in one request: send at most ${MAX_BATCH_DOCUMENTS} per request`);
        }
      },
      schema: {
        summary: 'Upsert a batch of documents into a push (api) connector, idempotent on external_id',
        description: `At most ${MAX_BATCH_DOCUMENTS} documents (413 above). Any invalid document rejects the whole batch (400 naming index and field).`,
        tags: ['documents'],
        params: connectorParams,
        // Unknown fields are refused (a misspelt `updated_at` would otherwise be dropped silently).
        body: z.object({ documents: z.array(documentInputSchema.strict()).min(1) }).strict(),
        response: {
          200: upsertResultSchema,
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      await requirePushTarget(deps.db, tenantId, request.params.connector_id);
      const r = await upsertDocuments(docDeps, { tenantId, connectorId: request.params.connector_id, documents: request.body.documents, requireSource: true });
      return { ...r, documents: [...r.documents] };
    },
  );

  app.delete(
    '/v1/connectors/:connector_id/documents/:external_id',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Delete one pushed document (its chunks and vectors go with it)',
        tags: ['documents'],
        params: connectorParams.extend({ external_id: z.string().min(1).max(512) }),
        response: { 200: z.object({ deleted: z.literal(true), external_id: z.string() }) },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const { connector_id: connectorId, external_id: externalId } = request.params;
      await requirePushTarget(deps.db, tenantId, connectorId);
      const { deleted } = await deleteDocuments(docDeps, { tenantId, connectorId, externalIds: [externalId] });
      if (deleted === 0) throw Errors.notFound('document', externalId);
      return { deleted: true as const, external_id: externalId };
    },
  );

  app.get(
    '/v1/documents/:id',
    {
      config: { permission: 'query' },
      schema: {
        summary: 'Read one document in full',
        tags: ['documents'],
        params: z.object({ id: z.string().min(1).max(200) }),
        response: { 200: storedDocumentSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { viewer } = await readerView(deps, request);
      // A document the reader may not read is a 404 like a missing one: a 403 would confirm it exists.
      const doc = await getDocument(deps.db, principal.tenantId, request.params.id, viewer);
      if (!doc) throw Errors.notFound('document', request.params.id);
      // Who else may read it is an admin's business: the ACL names people and groups.
      const { acl, ...rest } = doc;
      return can(principal, 'admin') ? doc : rest;
    },
  );

  app.get(
    '/v1/jobs/:job_id',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: "A background job of the caller's tenant: status and progress (e.g. the documents.embed job a push returned as embed_job_id)",
        tags: ['documents'],
        params: z.object({ job_id: z.string().min(1).max(200) }),
        response: { 200: jobRecord },
      },
    },
    async (request) => {
      const job = await getJob(deps.db, principalOf(request).tenantId, request.params.job_id);
      if (!job) throw Errors.notFound('job', request.params.job_id);
      const cp = (job.checkpoint ?? {}) as { done?: unknown; total?: unknown };
      const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
      return {
        job_id: job.id,
        kind: job.kind,
        status: job.status,
        progress: job.progress,
        done: count(cp.done),
        total: count(cp.total),
        attempts: job.attempts,
        // A job that recovered after failed attempts has no error to report.
        last_error: job.status === 'completed' ? null : job.lastError,
        result: job.status === 'completed' ? job.result : null,
        created_at: job.createdAt.toISOString(),
        updated_at: job.updatedAt.toISOString(),
        finished_at: job.finishedAt?.toISOString() ?? null,
      };
    },
  );

  app.post(
    '/v1/search',
    {
      config: { permission: 'query' },
      schema: {
        summary: "Hybrid search (BM25 + vectors) over the tenant's documents, returning passages with their scores",
        tags: ['documents'],
        body: z.object({
          query: z.string().trim().min(1).max(2000),
          sources: z.array(z.string()).max(100).optional().describe('connector ids to restrict to'),
          limit: z.number().int().min(1).max(100).default(10),
          mode: z.enum(['hybrid', 'lexical', 'vector']).default('hybrid'),
          filters: z
            .object({
              after: rangeBound('after').optional(),
              before: rangeBound('before').optional(),
              authors: z.array(z.string()).optional(),
              document_types: z.array(z.string()).optional(),
              connector_types: z.array(z.string()).optional(),
            })
            .optional(),
        }).strict(),
        response: { 200: z.object({ passages: z.array(passageSchema) }) },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const b = request.body;
      const { viewer } = await readerView(deps, request);
      const passages = await searchPassages(docDeps, { tenantId, query: b.query, sources: b.sources, limit: b.limit, mode: b.mode, filters: b.filters, viewer });
      return { passages: passages.map(({ vector: _v, acl: _a, ordinal: _o, ...p }) => p) };
    },
  );
}
