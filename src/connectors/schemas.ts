import { z } from 'zod';

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
