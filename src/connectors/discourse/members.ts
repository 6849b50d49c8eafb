import { z } from 'zod';
import type { SourceIdentities } from '../kit/index.ts';
import { type DiscourseCtx, discourseJson } from './client.ts';

/** A Discourse user as the identity directory names it. */
export const discourseAccount = (userId: number) => `discourse:${userId}`;
export const categoryGroup = (categoryId: number) => `discourse:category:${categoryId}`;

/** `/groups/{name}/members.json` pages (Discourse's default page size). */
const MEMBER_PAGE = 50;
/** `/admin/users/list/active.json` answers 100 users a page. */
const ADMIN_PAGE = 100;

const showAnswer = z.object({ category: z.object({ id: z.number(), group_permissions: z.array(z.object({ group_name: z.string(), permission_type: z.number() })).default([]) }) });
const groupUser = z.object({ id: z.number(), username: z.string(), name: z.string().nullish() });
const membersAnswer = z.object({ members: z.array(groupUser), owners: z.array(groupUser).default([]), meta: z.object({ total: z.number(), limit: z.number(), offset: z.number() }) });
const adminUsers = z.array(z.object({ id: z.number(), username: z.string(), email: z.string().nullish() }));

async function groupMembers(ctx: DiscourseCtx, name: string): Promise<z.infer<typeof groupUser>[] | null> {
  const out: z.infer<typeof groupUser>[] = [];
  for (let offset = 0; ; offset += MEMBER_PAGE) {
    const raw = await discourseJson<unknown>(ctx, `/groups/${encodeURIComponent(name)}/members.json`, { query: { limit: MEMBER_PAGE, offset }, missingOk: true });
    if (raw === null) return offset === 0 ? null : out;
    const r = membersAnswer.parse(raw);
    out.push(...r.members, ...r.owners);
    if (r.members.length === 0 || offset + MEMBER_PAGE >= r.meta.total) return out;
  }
}

/** Emails by user id, from the admin users list (`show_emails=true`); null when the API user is not an admin. */
async function adminEmails(ctx: DiscourseCtx): Promise<Map<number, string> | null> {
  const out = new Map<number, string>();
  for (let page = 1; ; page++) {
    const raw = await discourseJson<unknown>(ctx, '/admin/users/list/active.json', { query: { show_emails: true, page }, missingOk: true });
    if (raw === null) return page === 1 ? null : out;
    const users = adminUsers.parse(raw);
    for (const u of users) if (u.email) out.set(u.id, u.email.toLowerCase());
    if (users.length < ADMIN_PAGE) return out;
  }
}

/**
 * The readers of each read-restricted category (`discourse:category:<id>`): the groups its `group_permissions` name
 * (`GET /c/{id}/show.json`; create, reply and see all read) and the `admins` group (admins see every category),
 * expanded with `GET /groups/{name}/members.json` (members and owners). Emails come from the admin users list when
 * `api_username` is an admin; otherwise the accounts wait for an admin's mapping and the sync says so.
 */
export async function readCategoryReaders(ctx: DiscourseCtx, categoryIds: readonly number[]): Promise<{ identities?: SourceIdentities; notices?: string[] }> {
  if (categoryIds.length === 0) return {};
  const cache = new Map<string, z.infer<typeof groupUser>[] | null>();
  const users = new Map<number, z.infer<typeof groupUser>>();
  const groups: { group_id: string; members: string[] }[] = [];
  const unreadable = new Set<string>();
  for (const id of categoryIds) {
    const show = await discourseJson<unknown>(ctx, `/c/${id}/show.json`, { missingOk: true });
    if (show === null) continue;
    const names = new Set([...showAnswer.parse(show).category.group_permissions.map((g) => g.group_name), 'admins']);
    const members = new Set<string>();
    for (const name of names) {
      if (!cache.has(name)) cache.set(name, await groupMembers(ctx, name));
      const list = cache.get(name);
      if (!list) unreadable.add(name);
      for (const u of list ?? []) {
        users.set(u.id, u);
        members.add(discourseAccount(u.id));
      }
    }
    groups.push({ group_id: categoryGroup(id), members: [...members] });
  }
  const emails = users.size > 0 ? await adminEmails(ctx) : new Map<number, string>();
  const accounts = [...users.values()].map((u) => ({ account_id: discourseAccount(u.id), email: emails?.get(u.id) ?? null, display_name: u.username }));
  const notices: string[] = [];
  if (unreadable.size > 0) notices.push(`Discourse hid the members of group(s) ${[...unreadable].slice(0, 5).join(', ')} from ${ctx.credentials.api_username}: their restricted categories reach fewer people.`);
  if (emails === null) notices.push(`Discourse shows emails only to admins: ${ctx.credentials.api_username} is not one, so restricted categories' readers wait for an admin's mapping (People & access).`);
  return { identities: { accounts, groups }, ...(notices.length > 0 ? { notices } : {}) };
}
