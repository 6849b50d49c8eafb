import { z } from 'zod';
import {
  CONNECTOR_STATES,
  catalogEntry,
  createConnector,
  describeConnector,
  listConnectors,
  listKinds,
  removeConnector,
  replaceCredentials,
  setPaused,
} from '../../connectors/index.ts';
import { requestSync } from '../../sync/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { readerView } from '../view.ts';

export const connectorListItem = z.object({
  connector_id: z.string(),
  connector_type: z.string(),
  display_name: z.string(),
  status: z.string(),
  last_sync_at: z.string().nullable(),
  document_count: z.number().int(),
});

const idParams = z.object({ id: z.string().min(1).max(200) });
const status = z.enum(CONNECTOR_STATES);

const syncRun = z.object({
  run_id: z.string(),
  sync_type: z.enum(['incremental', 'full']),
  trigger: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  deleted: z.number().int(),
  batches: z.number().int(),
  rate_limited_waits: z.number().int(),
  error: z.string().nullable(),
});

const connectorDetails = z.object({
  connector_id: z.string(),
  connector_type: z.string(),
  display_name: z.string(),
  status,
  status_reason: z.string().nullable().describe('why the connector is in this state, and what to do'),
  last_sync_at: z.string().nullable(),
  last_error: z.string().nullable(),
  document_count: z.number().int(),
  settings: z.record(z.string(), z.unknown()),
  credentials_configured: z.boolean().describe('credentials are stored encrypted and never returned'),
  oauth: z.object({ connected: z.boolean(), token_expires_at: z.string().nullable() }),
  schedule: z.object({ next_incremental_at: z.string().nullable(), next_full_at: z.string().nullable() }),
  rate_limited_until: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  sync_runs: z.array(syncRun).describe('the latest sync runs, newest first'),
});

const catalogItem = z.object({
  connector_type: z.string(),
  display_name: z.string(),
  category: z.string(),
  group: z.enum(['productivity', 'developer_tools', 'crm', 'support', 'llm_providers', 'other']).describe("the spec's catalogue grouping"),
  auth_type: z.string().describe('the preferred of auth_types'),
  auth_types: z.array(z.enum(['oauth2', 'api_key', 'none'])).describe('how a connector of this kind can authenticate, preferred first'),
  oauth: z.boolean(),
  credentials_schema: z.record(z.string(), z.unknown()),
  settings_schema: z.record(z.string(), z.unknown()),
  content_types: z.array(z.string()),
  sync: z.boolean(),
  actions: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  webhook_events: z.array(z.string()),
  vendor_limits: z.record(z.string(), z.number()),
});

export async function connectorRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/connectors',
    {
      config: { permission: 'connector:read' },
      schema: { summary: "List the tenant's connectors", tags: ['connectors'], response: { 200: z.object({ connectors: z.array(connectorListItem) }) } },
    },
    // Counts hold only what the caller may read (their view; an admin's ?bypass_acl=true counts all, audited).
    async (request) => ({ connectors: await listConnectors(deps.db, principalOf(request).tenantId, (await readerView(deps, request)).viewer) }),
  );

  app.get(
    '/v1/connectors/catalog',
    {
      config: { permission: 'connector:read' },
      schema: { summary: 'The implemented connector kinds', tags: ['connectors'], response: { 200: z.object({ connectors: z.array(catalogItem) }) } },
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
          201: z.object({
            connector_id: z.string(),
            connector_type: z.string(),
            display_name: z.string(),
            status,
            oauth_url: z.string().nullable().describe('null when the credentials make OAuth unnecessary'),
          }),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await createConnector(deps, principalOf(request), request.body)),
  );

  app.get(
    '/v1/connectors/:id',
    {
      config: { permission: 'connector:read' },
      schema: { summary: 'A connector with its settings, schedule and sync history (never credentials)', tags: ['connectors'], params: idParams, response: { 200: connectorDetails } },
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
          202: z.object({ status: z.literal('syncing'), connector_id: z.string(), sync_type: z.enum(['incremental', 'full']), run_id: z.string(), job_id: z.string() }),
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
