import { z } from 'zod';
import {
  CONNECTOR_STATES,
  catalogEntry,
  catalogEntrySchema,
  connectorDetailsSchema,
  connectorListItemSchema,
  createConnector,
  createdConnectorSchema,
  describeConnector,
  listConnectors,
  listKinds,
  removeConnector,
  replaceCredentials,
  setPaused,
} from '../../connectors/index.ts';
import { requestSync, syncRequestedSchema } from '../../sync/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { readerView } from '../view.ts';

const idParams = z.object({ id: z.string().min(1).max(200) });
const status = z.enum(CONNECTOR_STATES);

// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function connectorRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/connectors',
    {
      config: { permission: 'connector:read' },
      schema: { summary: "List the tenant's connectors", tags: ['connectors'], response: { 200: z.object({ connectors: z.array(connectorListItemSchema) }) } },
    },
    // Counts hold only what the caller may read (their view; an admin's ?bypass_acl=true counts all, audited).
    async (request) => ({ connectors: await listConnectors(deps.db, principalOf(request).tenantId, (await readerView(deps, request)).viewer) }),
  );

  app.get(
    '/v1/connectors/catalog',
    {
      config: { permission: 'connector:read' },
      schema: { summary: 'The implemented connector kinds', tags: ['connectors'], response: { 200: z.object({ connectors: z.array(catalogEntrySchema) }) } },
    },
    async () => ({ connectors: listKinds().map(catalogEntry) }),
  );

  app.post(
    '/v1/connectors',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Create a connector; it starts in `connecting`',
        tags: ['connectors'],
        body: z.object({
          connector_type: z.string().min(1).max(64),
          display_name: z.string().trim().min(1).max(200),
          credentials: z.record(z.string(), z.unknown()).optional(),
          settings: z.record(z.string(), z.unknown()).optional(),
        }).strict(),
        response: {
          201: createdConnectorSchema,
        },
      },
    },
    async (request, reply) => reply.status(201).send(await createConnector(deps, principalOf(request), request.body)),
  );

  app.get(
    '/v1/connectors/:id',
    {
      config: { permission: 'connector:read' },
      schema: { summary: 'A connector with its settings, schedule and sync history (never credentials)', tags: ['connectors'], params: idParams, response: { 200: connectorDetailsSchema } },
    },
    async (request) => describeConnector(deps, principalOf(request).tenantId, request.params.id, (await readerView(deps, request)).viewer),
  );

  app.delete(
    '/v1/connectors/:id',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Delete a connector: stops its jobs and removes its documents',
        tags: ['connectors'],
        params: idParams,
        response: { 200: z.object({ connector_id: z.string(), deleted: z.literal(true), documents_deleted: z.number().int() }) },
      },
    },
    async (request) => removeConnector(deps, principalOf(request), request.params.id),
  );

  app.post(
    '/v1/connectors/:id/sync',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Start a sync (incremental by default, full with ?full=true); 409 when one is running or the connector is paused/disconnected',
        tags: ['connectors'],
        params: idParams,
        querystring: z.object({ full: z.enum(['true', 'false']).default('false') }),
        response: {
          202: syncRequestedSchema,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const started = await requestSync(deps.db, {
        tenantId: principal.tenantId,
        connectorId: request.params.id,
        full: request.query.full === 'true',
        trigger: 'manual',
        now: deps.clock.now(),
        actor: principal,
      });
      return reply.status(202).send(started);
    },
  );

  for (const [path, paused] of [
    ['/v1/connectors/:id/pause', true],
    ['/v1/connectors/:id/resume', false],
  ] as const) {
    app.post(
      path,
      {
        config: { permission: 'connector:write' },
        schema: {
          summary: paused ? 'Pause a connector: no scheduled or manual syncs; a running sync stops at its next checkpoint' : 'Resume a paused connector',
          tags: ['connectors'],
          params: idParams,
          response: { 200: z.object({ connector_id: z.string(), status }) },
        },
      },
      async (request) => {
        const c = await setPaused(deps, principalOf(request), request.params.id, paused);
        return { connector_id: c.id, status: c.status };
      },
    );
  }

  app.put(
    '/v1/connectors/:id/credentials',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Replace the credentials of a disconnected or failed connector; they are validated again (status connecting)',
        tags: ['connectors'],
        params: idParams,
        body: z.object({ credentials: z.record(z.string(), z.unknown()) }).strict(),
        response: { 200: z.object({ connector_id: z.string(), status }) },
      },
    },
    async (request) => {
      const c = await replaceCredentials(deps, principalOf(request), request.params.id, request.body.credentials);
      return { connector_id: c.id, status: c.status };
    },
  );
}
