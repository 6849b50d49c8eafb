import { z } from 'zod';
import { joinUrl, type SourceContext, type SourceIdentities, VendorHttpError } from '../kit/index.ts';
import { checkDriveResponse, driveJson } from './client.ts';
import { driveGroup } from './map.ts';
import type { DriveCredentials, DriveSettings } from './schemas.ts';

type Ctx = SourceContext<DriveCredentials, DriveSettings>;

/** The Admin SDK Directory API's host (the tests' fake serves it beside Drive). */
export const DIRECTORY_API = 'https://admin.googleapis.com';
/** A Google group as Drive's ACLs name it (`permissions[].type = group`): its email, lower-cased. */
export const groupOf = (email: string) => `google_drive:${email.toLowerCase()}`;

const groupList = z.object({ groups: z.array(z.object({ id: z.string(), email: z.string() })).default([]), nextPageToken: z.string().optional() });
const memberList = z.object({
  members: z.array(z.object({ id: z.string().optional(), email: z.string().optional(), type: z.string(), status: z.string().optional() })).default([]),
  nextPageToken: z.string().optional(),
});
const permissionList = z.object({
  permissions: z.array(z.object({ type: z.string(), emailAddress: z.string().optional(), deleted: z.boolean().optional() })).default([]),
  nextPageToken: z.string().optional(),
});

class DirectoryRefused extends Error {}

/** One Directory API call; a 403 (not an admin, or the scope not granted) is DirectoryRefused, other errors as Drive's. */
async function directory<T>(ctx: Ctx, path: string, query: Record<string, string | number | boolean | undefined>, schema: z.ZodType<T>): Promise<T> {
  const u = new URL(joinUrl(ctx.apiBaseUrl ?? DIRECTORY_API, path));
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
  const res = await ctx.fetch(u.toString(), { headers: { authorization: `Bearer ${ctx.credentials.access_token ?? ''}`, accept: 'application/json' }, signal: ctx.signal });
  if (res.status === 403) {
    const body = await res.text().catch(() => '');
    // A quota 403 is a rate limit (checkDriveResponse says so); any other 403 is a refusal.
    if (/RateLimitExceeded|quotaExceeded/i.test(body)) await checkDriveResponse(new Response(body, { status: 403, headers: res.headers }), false);
    throw new DirectoryRefused(body);
  }
  await checkDriveResponse(res, false);
  return schema.parse(await res.json());
}

/** Every user email of a group, nested groups included (`includeDerivedMembership=true`), active members only. */
async function groupMembers(ctx: Ctx, groupKey: string): Promise<string[]> {
  const out: string[] = [];
  let pageToken: string | undefined;
  do {
    const r = await directory(ctx, `/admin/directory/v1/groups/${encodeURIComponent(groupKey)}/members`, { includeDerivedMembership: true, maxResults: 200, pageToken }, memberList);
    for (const m of r.members) if (m.type === 'USER' && m.email && (m.status ?? 'ACTIVE') === 'ACTIVE') out.push(m.email.toLowerCase());
    pageToken = r.nextPageToken;
  } while (pageToken);
  return [...new Set(out)];
}

/** A shared drive's members (`permissions.list` on the drive id): user emails, and group emails to expand. */
async function driveMembers(ctx: Ctx, driveId: string): Promise<{ users: string[]; groups: string[] }> {
  const users: string[] = [];
  const groups: string[] = [];
  let pageToken: string | undefined;
  do {
    const r = await driveJson(
      ctx,
      `/drive/v3/files/${encodeURIComponent(driveId)}/permissions`,
      { supportsAllDrives: true, pageSize: 100, pageToken, fields: 'nextPageToken,permissions(type,emailAddress,deleted)' },
      permissionList,
    );
    for (const p of r.permissions) {
      if (p.deleted || !p.emailAddress) continue;
      if (p.type === 'user') users.push(p.emailAddress.toLowerCase());
      else if (p.type === 'group') groups.push(p.emailAddress.toLowerCase());
    }
    pageToken = r.nextPageToken;
  } while (pageToken);
  return { users, groups };
}

/**
 * The members behind Drive's ACL groups, re-read on every sync: every Google group of the Workspace
 * (`GET /admin/directory/v1/groups?customer=my_customer`, then each group's members with nested groups expanded) as
 * `google_drive:<group email>`, and each shared drive's members as `google_drive:<drive id>` (its user permissions
 * plus the members of its group permissions). The Directory API needs a Workspace admin's consent to the
 * `admin.directory.group.readonly` scope; without it (403) the Google groups stay as they were, shared drives keep
 * their direct user members, and the sync says so.
 */
export async function readDriveMembers(ctx: Ctx, sharedDriveIds: readonly string[]): Promise<{ identities: SourceIdentities; notices?: string[] }> {
  const groups: { group_id: string; members: string[] }[] = [];
  const byEmail = new Map<string, string[]>();
  let refused = false;
  try {
    let pageToken: string | undefined;
    do {
      const r = await directory(ctx, '/admin/directory/v1/groups', { customer: 'my_customer', maxResults: 200, pageToken }, groupList);
      for (const g of r.groups) byEmail.set(g.email.toLowerCase(), await groupMembers(ctx, g.id));
      pageToken = r.nextPageToken;
    } while (pageToken);
  } catch (err) {
    if (!(err instanceof DirectoryRefused)) throw err;
    refused = true;
  }
  if (!refused) for (const [email, members] of byEmail) groups.push({ group_id: groupOf(email), members });
  for (const id of sharedDriveIds) {
    const m = await driveMembers(ctx, id).catch((err: unknown) => {
      // A drive the account is no longer a member of: its group stays as it was (its files leave with the listing).
      if (err instanceof VendorHttpError && err.status === 404) return null;
      throw err;
    });
    if (!m) continue;
    groups.push({ group_id: driveGroup(id), members: [...new Set([...m.users, ...m.groups.flatMap((g) => byEmail.get(g) ?? [])])] });
  }
  const notices = refused
    ? [
        'Google refused the Directory API (a Workspace admin must connect the connector, or grant the admin.directory.group.readonly scope): Google groups were not mirrored, and shared drives count only their direct members.',
      ]
    : undefined;
  return { identities: { groups }, ...(notices ? { notices } : {}) };
}
