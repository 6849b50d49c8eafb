/** Per-process generations of each tenant's identity directory: every write bumps it (see person-cache.ts). */
const generations = new Map<string, number>();

/** The tenant's directory generation in this process (person-cache.ts). */
export const generation = (tenantId: string): number => generations.get(tenantId) ?? 0;

/** Forgets every cached person of `tenantId` (in every database handle of this process). */
export function directoryChanged(tenantId: string): void {
  generations.set(tenantId, generation(tenantId) + 1);
}

/** Runs a directory write with the tenant's cached people forgotten before and after it. */
export async function changingDirectory<T>(tenantId: string, write: () => Promise<T>): Promise<T> {
  directoryChanged(tenantId);
  try {
    return await write();
  } finally {
    directoryChanged(tenantId);
  }
}

