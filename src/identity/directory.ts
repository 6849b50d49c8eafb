import { normalizeEmail } from '../access/index.ts';
import type { DatabaseExecutor, Queryable } from '../platform/db/index.ts';
import { changingDirectory } from './generation.ts';

/** A vendor identity a connector saw: `<connector_type>:<vendor user id>`, with the email the vendor reports. */
export interface VendorAccount {
  readonly account_id: string;
  readonly email?: string | null;
  readonly display_name?: string | null;
}

/** A vendor group and its whole current member list (account ids or emails). */
export interface GroupMembers {
  readonly group_id: string;
  readonly members: readonly string[];
}

/** Who a person is to retrieval: their IdP groups (SSO), their vendor account ids and vendor groups. */
export interface PersonDirectoryEntry {
  readonly email: string;
  readonly display_name: string | null;
  readonly idp_groups: string[];
  readonly accounts: string[];
  readonly vendor_groups: string[];
}


/** One round trip: the person's SSO record (if they ever signed in), vendor accounts mapped to them and their groups. */
export async function lookupPerson(db: Queryable, tenantId: string, rawEmail: string): Promise<PersonDirectoryEntry> {
  const email = normalizeEmail(rawEmail);
  const r = await db.query<{ name: string | null; groups: unknown; accounts: string[] | null; vendor_groups: string[] | null }>(
    `WITH accts AS (SELECT account_id FROM identity_accounts WHERE tenant_id = $1 AND coalesce(mapped_email, email) = $2)
     SELECT (SELECT name FROM users WHERE tenant_id = $1 AND lower(email) = $2 AND disabled_at IS NULL LIMIT 1) AS name,
            (SELECT groups FROM users WHERE tenant_id = $1 AND lower(email) = $2 AND disabled_at IS NULL LIMIT 1) AS groups,
            (SELECT array_agg(account_id ORDER BY account_id) FROM accts) AS accounts,
            (SELECT array_agg(DISTINCT group_id) FROM identity_memberships
              WHERE tenant_id = $1 AND (member = $2 OR member IN (SELECT account_id FROM accts))) AS vendor_groups`,
    [tenantId, email],
  );
  const row = r.rows[0];
  const groups = typeof row?.groups === 'string' ? (JSON.parse(row.groups) as unknown) : row?.groups;
  return {
    email,
    display_name: row?.name ?? null,
    idp_groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
    accounts: row?.accounts ?? [],
    vendor_groups: [...(row?.vendor_groups ?? [])].sort(),
  };
}

/**
 * Records vendor accounts a connector saw. The vendor's email is refreshed each time; an admin's hand mapping
 * (mapped_email) is kept.
 */
export async function upsertAccounts(db: Queryable, tenantId: string, connectorId: string, accounts: readonly VendorAccount[]): Promise<void> {
  if (accounts.length === 0) return;
  await changingDirectory(tenantId, () => db.query(
    `INSERT INTO identity_accounts (tenant_id, account_id, connector_id, display_name, email)
     SELECT $1, x.id, $2, x.name, x.email FROM unnest($3::text[], $4::text[], $5::text[]) AS x(id, name, email)
     ON CONFLICT (tenant_id, account_id) DO UPDATE SET
       connector_id = excluded.connector_id, display_name = excluded.display_name, email = excluded.email, updated_at = now()`,
    [
      tenantId,
      connectorId,
      accounts.map((a) => a.account_id),
      accounts.map((a) => a.display_name ?? null),
      accounts.map((a) => (a.email ? normalizeEmail(a.email) : null)),
    ],
  ));
}

/**
 * Replaces what `source` (a connector id, or 'manual') says about each named group with its current member list:
 * members removed at the source are gone, other writers' rows of the group stay.
 */
export async function replaceGroupMembers(db: DatabaseExecutor, tenantId: string, source: string, groups: readonly GroupMembers[]): Promise<void> {
  if (groups.length === 0) return;
  const ids = groups.map((g) => g.group_id);
  const pairs = groups.flatMap((g) => [...new Set(g.members)].map((m) => [g.group_id, m] as const));
  await changingDirectory(tenantId, () => db.transaction(async (tx) => {
    await tx.query('DELETE FROM identity_memberships WHERE tenant_id = $1 AND source = $2 AND group_id = ANY($3::text[])', [tenantId, source, ids]);
    if (pairs.length === 0) return;
    await tx.query(
      `INSERT INTO identity_memberships (tenant_id, group_id, member, source)
       SELECT $1, x.g, x.m, $2 FROM unnest($3::text[], $4::text[]) AS x(g, m) ON CONFLICT DO NOTHING`,
      [tenantId, source, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
  }));
}

/** Removes everything a connector wrote (the connector was deleted). */
export async function forgetConnectorIdentities(db: Queryable, tenantId: string, connectorId: string): Promise<void> {
  await changingDirectory(tenantId, async () => {
    await db.query('DELETE FROM identity_memberships WHERE tenant_id = $1 AND source = $2', [tenantId, connectorId]);
    await db.query('DELETE FROM identity_accounts WHERE tenant_id = $1 AND connector_id = $2 AND mapped_email IS NULL', [tenantId, connectorId]);
  });
}

export interface AccountRecord {
  readonly account_id: string;
  readonly connector_id: string;
  readonly display_name: string | null;
  readonly email: string | null;
  readonly mapped_email: string | null;
  readonly groups: string[];
}

/** Vendor accounts no email resolves (the vendor hid it and no admin mapped it): their grants reach nobody yet. */
export async function listAccounts(db: Queryable, tenantId: string, opts: { unresolvedOnly: boolean; accountId?: string }): Promise<AccountRecord[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT a.account_id, a.connector_id, a.display_name, a.email, a.mapped_email,
            coalesce((SELECT array_agg(DISTINCT m.group_id) FROM identity_memberships m WHERE m.tenant_id = a.tenant_id AND m.member = a.account_id), '{}') AS groups
     FROM identity_accounts a WHERE a.tenant_id = $1 AND ($2::text IS NULL OR a.account_id = $2)
       ${opts.unresolvedOnly ? 'AND coalesce(a.mapped_email, a.email) IS NULL' : ''}
     ORDER BY a.account_id LIMIT 1000`,
    [tenantId, opts.accountId ?? null],
  );
  return r.rows.map((row) => ({
    account_id: String(row.account_id),
    connector_id: String(row.connector_id),
    display_name: (row.display_name as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    mapped_email: (row.mapped_email as string | null) ?? null,
    groups: [...((row.groups as string[] | null) ?? [])].sort(),
  }));
}

/** An admin's hand mapping of a vendor account to a person (null removes it); null when the account is unknown. */
export async function mapAccount(db: Queryable, tenantId: string, accountId: string, email: string | null): Promise<AccountRecord | null> {
  const r = await changingDirectory(tenantId, () =>
    db.query('UPDATE identity_accounts SET mapped_email = $3, updated_at = now() WHERE tenant_id = $1 AND account_id = $2', [
      tenantId,
      accountId,
      email === null ? null : normalizeEmail(email),
    ]),
  );
  if (r.affectedRows === 0) return null;
  return (await listAccounts(db, tenantId, { unresolvedOnly: false, accountId }))[0] ?? null;
}

/**
 * The people of a tenant as retrieval knows them (admins' directory view): everyone who signed in through SSO,
 * every email a vendor account resolves to (by the vendor or an admin's mapping) and every email named as a group
 * member, each with their IdP groups, vendor accounts and vendor groups. At most 1000, by email.
 */
export async function listPeople(db: Queryable, tenantId: string): Promise<PersonDirectoryEntry[]> {
  const r = await db.query<{ email: string; name: string | null; groups: unknown; accounts: string[] | null; vendor_groups: string[] | null }>(
    `WITH acct AS (SELECT account_id, coalesce(mapped_email, email) AS email, display_name FROM identity_accounts
                   WHERE tenant_id = $1 AND coalesce(mapped_email, email) IS NOT NULL),
          sso AS (SELECT lower(email) AS email, name, groups FROM users WHERE tenant_id = $1 AND disabled_at IS NULL),
          people AS (SELECT email FROM sso UNION SELECT email FROM acct
                     UNION SELECT member FROM identity_memberships WHERE tenant_id = $1 AND member LIKE '%@%')
     SELECT p.email,
            coalesce((SELECT name FROM sso WHERE sso.email = p.email LIMIT 1),
                     (SELECT display_name FROM acct WHERE acct.email = p.email AND display_name IS NOT NULL ORDER BY account_id LIMIT 1)) AS name,
            (SELECT groups FROM sso WHERE sso.email = p.email LIMIT 1) AS groups,
            (SELECT array_agg(account_id ORDER BY account_id) FROM acct WHERE acct.email = p.email) AS accounts,
            (SELECT array_agg(DISTINCT m.group_id) FROM identity_memberships m
              WHERE m.tenant_id = $1 AND (m.member = p.email OR m.member IN (SELECT account_id FROM acct WHERE acct.email = p.email))) AS vendor_groups
     FROM people p ORDER BY p.email LIMIT 1000`,
    [tenantId],
  );
  return r.rows.map((row) => {
    const groups = typeof row.groups === 'string' ? (JSON.parse(row.groups) as unknown) : row.groups;
    return {
      email: row.email,
      display_name: row.name ?? null,
      idp_groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string').sort() : [],
      accounts: row.accounts ?? [],
      vendor_groups: [...(row.vendor_groups ?? [])].sort(),
    };
  });
}
