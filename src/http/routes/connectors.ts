import { z } from 'zod';
import { listConnectors } from '../../connectors/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

export const connectorListItem = z.object({
  connector_id: z.string(),
  connector_type: z.string(),
  display_name: z.string(),
  status: z.string(),
  last_sync_at: z.string().nullable(),
  document_count: z.number().int(),
});

export async function connectorRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/connectors',
    {
      config: { permission: 'connector:read' },
      schema: { summary: "List the tenant's connectors", tags: ['connectors'], response: { 200: z.object({ connectors: z.array(connectorListItem) }) } },
    },
    async (request) => ({ connectors: await listConnectors(deps.db, principalOf(request).tenantId) }),
  );
}
