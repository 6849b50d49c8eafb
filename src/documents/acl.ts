import { z } from 'zod';
import type { Queryable } from '../platform/db/index.ts';

/**
 * Who may read a document, in the one shape every connector and push client stores (docs/permissions.md): users
 * are lower-cased emails or `<connector_type>:<vendor user id>`, groups `<connector_type>:<vendor group id>` or IdP
 * group names, domain email domains; `public: true` means everyone in the tenant. A document without an ACL is
 * visible to everyone in the tenant; an ACL that grants nobody is read only through an admin's explicit bypass.
 */
export const documentAclSchema = z
  .object({
    public: z.boolean().optional(),
    domain: z.array(z.string().trim().min(1).max(255)).max(1000).readonly().optional(),
    users: z.array(z.string().trim().min(1).max(512)).max(10_000).readonly().optional(),
    groups: z.array(z.string().trim().min(1).max(512)).max(10_000).readonly().optional(),
  })
  .strict();
export type DocumentAcl = z.infer<typeof documentAclSchema>;

/**
 * Whose view retrieval answers. `principals`: the strings a document's `acl_principals` (migration 060) must
 * share one of, i.e. the reader's `*`, `public`, `user:<id>`, `group:<g>`, `domain:<d>`; `all`: every document
 * (an audited admin bypass, or an operator's own storage through the CLI).
 */
export type Viewer = { readonly all: true } | { readonly principals: readonly string[] };

/** What a caller with no identity sees (a service key): documents without an ACL, or public ones. */
export const EVERYONE: Viewer = { principals: ['*', 'public'] };
/** Every document, ACLs ignored: only for an admin's audited bypass and the operator's CLI on its own storage. */
export const ALL_DOCUMENTS: Viewer = { all: true };

/** The principal strings of a person: their email, its domain, their groups (IdP and vendor), vendor user ids. */
export function personPrincipals(input: { email: string; groups: readonly string[]; userIds?: readonly string[] }): string[] {
  const email = input.email.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  const out = new Set(['*', 'public', `user:${email}`]);
  if (at > 0) out.add(`domain:${email.slice(at + 1)}`);
  for (const id of input.userIds ?? []) out.add(`user:${id.toLowerCase()}`);
  for (const g of input.groups) out.add(`group:${g}`);
  return [...out].sort();
}

/** A stable key of a view, for caches that must not serve one person's answer to another. */
export function viewerKey(viewer: Viewer): string {
  return 'all' in viewer ? 'all' : viewer.principals.join('\u0001');
}

/**
 * The SQL condition for `viewer` on the `acl_principals` of alias `alias` (documents `d`, or chunks `c`, whose copy
 * migration 094 keeps in step), or null when nothing is filtered.
 */
export function aclCondition(viewer: Viewer | undefined, add: (v: unknown) => string, alias = 'd'): string | null {
  const v = viewer ?? EVERYONE;
  if ('all' in v) return null;
  return `${alias}.acl_principals && ${add([...v.principals])}::text[]`;
}

/**
 * The view a query needs to filter by: a tenant none of whose documents is restricted (the common case before any
 * connector with ACLs is added) is searched unfiltered, which keeps the unfiltered, faster query shapes (one probe of
 * `documents_restricted_idx`, migration 060; the predicate below must stay the index's). Embedded, a "none" answer is
 * kept until the next write through this process's database (`writeEpoch`): nothing can have become restricted
 * before that, so the probe's round trip (~0.7 ms of PGlite CPU) is paid once per write, not once per query.
 */
export async function effectiveViewer(db: Queryable & { writeEpoch?(): number }, tenantId: string, viewer: Viewer | undefined): Promise<Viewer> {
  const v = viewer ?? EVERYONE;
  if ('all' in v) return v;
  const known = restrictedSeen.get(db)?.get(tenantId);
  if (known !== undefined && known > Date.now()) return v;
  const epoch = db.writeEpoch?.();
  if (epoch !== undefined && noneSeen.get(db)?.get(tenantId) === epoch) return ALL_DOCUMENTS;
  const r = await db.query(`SELECT 1 FROM documents WHERE tenant_id = $1 AND NOT (acl_principals && ARRAY['*', 'public']::text[]) LIMIT 1`, [tenantId]);
  if (r.rows.length === 0) {
    // Kept only if no write was sent while the probe ran (the epoch moves before and after every write).
    if (epoch !== undefined && db.writeEpoch?.() === epoch) {
      const byTenant = noneSeen.get(db) ?? new Map<string, number>();
      byTenant.set(tenantId, epoch);
      noneSeen.set(db, byTenant);
    }
    return ALL_DOCUMENTS;
  }
  noneSeen.get(db)?.delete(tenantId);
  const byTenant = restrictedSeen.get(db) ?? new Map<string, number>();
  byTenant.set(tenantId, Date.now() + RESTRICTED_SEEN_MS);
  restrictedSeen.set(db, byTenant);
  return v;
}

/**
 * How long a tenant found to hold restricted documents skips the probe (one round trip, ~1-2 ms of a PGlite query):
 * filtering is always correct, so a stale "yes" (the last restricted document deleted meanwhile) only costs the
 * filtered query shape until it expires. A "no" is remembered only embedded, and only until the next write (above).
 */
const RESTRICTED_SEEN_MS = 30_000;
const restrictedSeen = new WeakMap<Queryable, Map<string, number>>();
/** Per database and tenant, the write epoch at which the probe found no restricted document. */
const noneSeen = new WeakMap<Queryable, Map<string, number>>();
