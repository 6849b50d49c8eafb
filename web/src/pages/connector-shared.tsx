import { call, isRecord } from '../api.ts';
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

export interface CatalogKind {
  readonly connector_type: string;
  readonly display_name: string;
  readonly category?: string;
  readonly auth_type?: string;
  readonly settings_schema?: unknown;
  readonly credentials_schema?: unknown;
  /** False for kinds with nothing to pull (`api`, a push source): the service refuses their syncs. */
  readonly sync: boolean;
  readonly raw: Record<string, unknown>;
}

function firstArray(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isRecord(v)) for (const x of Object.values(v)) if (Array.isArray(x)) return x;
  return [];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

/** Reads the catalogue tolerantly: the connectors capability owns its exact shape. */
export function parseCatalog(body: unknown): CatalogKind[] {
  return firstArray(body)
    .filter(isRecord)
    .map((k) => {
      const type = str(k.connector_type) ?? str(k.type) ?? str(k.kind) ?? str(k.id) ?? 'unknown';
      return {
        connector_type: type,
        display_name: str(k.display_name) ?? str(k.name) ?? str(k.title) ?? type,
        category: str(k.category),
        auth_type: str(k.auth_type) ?? str(k.auth),
        settings_schema: k.settings_schema ?? k.settings ?? k.settingsSchema,
        credentials_schema: k.credentials_schema ?? k.credentials ?? k.credentialsSchema,
        sync: k.sync !== false,
        raw: k,
      };
    });
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
  const url = str(res.url);
  if (!url) throw new Error('The service returned no authorization URL.');
  return url;
}
