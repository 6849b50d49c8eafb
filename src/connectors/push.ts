import type { Queryable } from '../platform/db/index.ts';
import { Errors } from '../platform/errors.ts';
import { getConnector } from './store.ts';

/** The connector type documents may be pushed to (POST /v1/connectors/{id}/documents, file imports). */
export const PUSH_CONNECTOR_TYPE = 'api';

/** Push ingestion targets a connector of the caller's tenant (404) whose type is `api` (409 naming its type). */
export async function requirePushTarget(db: Queryable, tenantId: string, connectorId: string): Promise<void> {
  const c = await getConnector(db, tenantId, connectorId);
  if (!c) throw Errors.notFound('connector', connectorId);
  if (c.type !== PUSH_CONNECTOR_TYPE) {
    throw Errors.conflict(`connector '${connectorId}' is of type '${c.type}': documents can be pushed only to connector_type '${PUSH_CONNECTOR_TYPE}'`, {
      connector_type: c.type,
    });
  }
}
