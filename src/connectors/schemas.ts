import { z } from 'zod';
import { type AuthType, CONNECTOR_GROUPS } from './kit/contract.ts';
import { CONNECTOR_STATES } from './states.ts';

/**
 * The connectors module's wire shapes: one zod schema each, with its type inferred from it. The HTTP routes use them
 * as response schemas (so the OpenAPI document and packages/client follow), MCP and the CLI import the same types.
 */

/** One connector of GET /v1/connectors, MCP `list_connectors` and the `atrium://connectors` resource. */
export const connectorListItemSchema = z.object({
  connector_id: z.string(),
  connector_type: z.string(),
  display_name: z.string(),
  status: z.string(),
  last_sync_at: z.string().nullable(),
  document_count: z.number().int(),
});
export type ConnectorListItem = z.infer<typeof connectorListItemSchema>;

export const SYNC_TYPES = ['incremental', 'full'] as const;
export type SyncType = (typeof SYNC_TYPES)[number];

/** One sync run, as GET /v1/connectors/{id} lists them (`sync_runs`) and the sync engine reads it back. */
export const syncRunSchema = z.object({
  run_id: z.string(),
  sync_type: z.enum(SYNC_TYPES),
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
export type SyncRun = z.infer<typeof syncRunSchema>;

/** The answer to POST /v1/connectors/{id}/sync (202): the run started and the job that carries it. */
export const syncRequestedSchema = z.object({
  status: z.literal('syncing'),
  connector_id: z.string(),
  sync_type: z.enum(SYNC_TYPES),
  run_id: z.string(),
  job_id: z.string(),
});
export type SyncRequested = z.infer<typeof syncRequestedSchema>;

/** The answer to POST /v1/connectors (201). */
export const createdConnectorSchema = z.object({
  connector_id: z.string(),
  connector_type: z.string(),
  display_name: z.string(),
  status: z.enum(CONNECTOR_STATES),
  oauth_url: z.string().nullable().describe('null when the credentials make OAuth unnecessary'),
});
export type CreatedConnector = z.infer<typeof createdConnectorSchema>;

/** GET /v1/connectors/{id}: settings, schedule and sync history; never credentials or tokens. */
export const connectorDetailsSchema = z.object({
  connector_id: z.string(),
  connector_type: z.string(),
  display_name: z.string(),
  status: z.enum(CONNECTOR_STATES),
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
  sync_runs: z.array(syncRunSchema).describe('the latest sync runs, newest first'),
});
export type ConnectorDetails = z.infer<typeof connectorDetailsSchema>;

const AUTH_TYPES = ['oauth2', 'api_key', 'none'] as const satisfies readonly AuthType[];

/** One implemented connector kind, as GET /v1/connectors/catalog lists them (built by catalog.ts `catalogEntry`). */
export const catalogEntrySchema = z.object({
  connector_type: z.string(),
  display_name: z.string(),
  category: z.string(),
  group: z.enum(CONNECTOR_GROUPS).describe("the spec's catalogue grouping"),
  auth_type: z.string().describe('the preferred of auth_types'),
  auth_types: z.array(z.enum(AUTH_TYPES)).describe('how a connector of this kind can authenticate, preferred first'),
  oauth: z.boolean(),
  credentials_schema: z.record(z.string(), z.unknown()),
  settings_schema: z.record(z.string(), z.unknown()),
  content_types: z.array(z.string()),
  sync: z.boolean(),
  actions: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  webhook_events: z.array(z.string()),
  vendor_limits: z.record(z.string(), z.number()),
});
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;
