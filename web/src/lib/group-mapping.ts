export const SSO_ROLES = ['admin', 'member', 'viewer'] as const;
export type SsoRole = (typeof SSO_ROLES)[number];

export interface MappingRow {
  readonly group: string;
  readonly role: SsoRole;
}

function isRole(v: unknown): v is SsoRole {
  return typeof v === 'string' && (SSO_ROLES as readonly string[]).includes(v);
}

export function rowsFromMapping(mapping: Readonly<Record<string, unknown>>): MappingRow[] {
  return Object.entries(mapping)
    .filter((e): e is [string, SsoRole] => isRole(e[1]))
    .map(([group, role]) => ({ group, role }))
    .sort((a, b) => a.group.localeCompare(b.group));
}

/** Blank rows are dropped; a group listed twice keeps its last role. */
export function mappingFromRows(rows: readonly MappingRow[]): Record<string, SsoRole> {
  const out: Record<string, SsoRole> = {};
  for (const r of rows) {
    const g = r.group.trim();
    if (g) out[g] = r.role;
  }
  return out;
}
