import { call, type OperationResponse } from '../api.ts';
import { Badge } from '../components/ui.tsx';

export const STATES = ['disconnected', 'connecting', 'connected', 'syncing', 'idle', 'error', 'rate_limited', 'paused'] as const;

const TONE: Record<string, 'neutral' | 'good' | 'warn' | 'bad' | 'info'> = {
  disconnected: 'neutral',
  connecting: 'info',
  connected: 'good',
  syncing: 'info',
  idle: 'good',
  error: 'bad',
  rate_limited: 'warn',
  paused: 'neutral',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={TONE[status] ?? 'neutral'}>
      {status === 'syncing' && <span className="spinner" aria-hidden="true" />}
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}

/** One kind of connector the service offers (GET /v1/connectors/catalog). `sync` is false for kinds with nothing to pull. */
export type CatalogKind = OperationResponse<'getConnectorsCatalog'>['connectors'][number];

/** The catalogue of connector kinds. */
export async function loadCatalog(signal?: AbortSignal): Promise<CatalogKind[]> {
  return (await call((c) => c.GET('/v1/connectors/catalog', { signal }))).connectors;
}

/** Why a connector of this kind offers no sync buttons (null: it does). Unknown kinds keep them: the service decides. */
export function noSyncReason(kind: CatalogKind | undefined): string | null {
  if (!kind || kind.sync) return null;
  return kind.connector_type === 'api'
    ? 'A push connector: documents arrive through POST /v1/connectors/{id}/documents, there is nothing to sync.'
    : `${kind.display_name} connectors have nothing to sync.`;
}

export async function syncConnector(id: string, full: boolean): Promise<void> {
  await call((c) => c.POST('/v1/connectors/{id}/sync', { params: { path: { id }, query: { full: full ? 'true' : 'false' } } }));
}

export async function setPaused(id: string, paused: boolean): Promise<void> {
  const params = { path: { id } };
  await call((c) => (paused ? c.POST('/v1/connectors/{id}/pause', { params }) : c.POST('/v1/connectors/{id}/resume', { params })));
}

export async function deleteConnector(id: string): Promise<void> {
  await call((c) => c.DELETE('/v1/connectors/{id}', { params: { path: { id } } }));
}

/** The provider's authorization URL for an OAuth kind, bound to this connector. */
export async function oauthUrl(type: string, connectorId: string): Promise<string> {
  const res = await call((c) => c.GET('/v1/connectors/{connector_type}/oauth-url', { params: { path: { connector_type: type }, query: { connector_id: connectorId } } }));
  const url = res.url;
  if (!url) throw new Error('The service returned no authorization URL.');
  return url;
}
