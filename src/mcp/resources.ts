import { can, type Permission, type Principal } from '../access/index.ts';

/** The URI scheme of Atrium's MCP resources. */
export const RESOURCE_SCHEME = 'atrium';

export const RESOURCE_NAMES = ['connectors', 'recent'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

export interface ResourceDefinition {
  readonly name: ResourceName;
  readonly uri: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: 'application/json';
  readonly permission: Permission;
}

export const RESOURCES: readonly ResourceDefinition[] = [
  {
    name: 'connectors',
    uri: `${RESOURCE_SCHEME}://connectors`,
    title: 'Connected tools',
    description: 'The connected tools with their connector id, type, display name, sync status, last sync time and document count.',
    mimeType: 'application/json',
    permission: 'connector:read',
  },
  {
    name: 'recent',
    uri: `${RESOURCE_SCHEME}://recent`,
    title: 'Recently synced documents',
    description: 'The most recently synced documents across all sources, newest first: id, title, source, url and timestamps.',
    mimeType: 'application/json',
    permission: 'query',
  },
];

export function resourcesFor(caller: Pick<Principal, 'permissions'>): ResourceDefinition[] {
  return RESOURCES.filter((r) => can(caller, r.permission));
}

/** The resource by URI if the caller may read it; undefined for unknown URIs and for resources the caller lacks. */
export function findResource(caller: Pick<Principal, 'permissions'>, uri: string): ResourceDefinition | undefined {
  const r = RESOURCES.find((x) => x.uri === uri);
  return r && can(caller, r.permission) ? r : undefined;
}
