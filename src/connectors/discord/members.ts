import { z } from 'zod';
import { type SourceIdentities, VendorHttpError } from '../kit/index.ts';
import { type DiscordCtx, discordGet } from './client.ts';
import { channelGroup, type discordOverwrite } from './map.ts';

/** Permission bits (topics/permissions): ADMINISTRATOR grants everything, VIEW_CHANNEL reads a channel. */
const ADMINISTRATOR = 1n << 3n;
const VIEW_CHANNEL = 1n << 10n;
/** `GET /guilds/{id}/members` answers at most 1000 members a call, paged by the highest user id seen (`after`). */
const MEMBER_LIMIT = 1000;

/** A Discord user as the identity directory names it (bots get no email: accounts are mapped by hand). */
export const discordAccount = (userId: string) => `discord:${userId}`;

const role = z.object({ id: z.string(), name: z.string(), permissions: z.string() });
const guild = z.object({ id: z.string(), owner_id: z.string(), roles: z.array(role) });
const member = z.object({
  user: z.object({ id: z.string(), username: z.string(), global_name: z.string().nullable().optional(), bot: z.boolean().optional() }),
  nick: z.string().nullable().optional(),
  roles: z.array(z.string()),
});
type Overwrite = z.infer<typeof discordOverwrite>;
type Member = z.infer<typeof member>;

/**
 * Whether a member may view a channel, as Discord computes it (topics/permissions#permission-overwrites): the
 * @everyone role's permissions OR the member's roles'; the owner and ADMINISTRATOR see everything; then the
 * channel's @everyone overwrite, the member's roles' overwrites (all denies, then all allows) and the member's own
 * overwrite, in that order.
 */
export function canView(m: { id: string; roles: readonly string[] }, g: { id: string; owner_id: string; roles: readonly { id: string; permissions: string }[] }, overwrites: readonly Overwrite[]): boolean {
  if (m.id === g.owner_id) return true;
  const perm = new Map(g.roles.map((r) => [r.id, BigInt(r.permissions)]));
  let p = perm.get(g.id) ?? 0n;
  for (const r of m.roles) p |= perm.get(r) ?? 0n;
  if ((p & ADMINISTRATOR) !== 0n) return true;
  const everyone = overwrites.find((o) => o.type === 0 && o.id === g.id);
  if (everyone) p = (p & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of overwrites) {
    if (o.type === 0 && o.id !== g.id && m.roles.includes(o.id)) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
  }
  p = (p & ~deny) | allow;
  const own = overwrites.find((o) => o.type === 1 && o.id === m.id);
  if (own) p = (p & ~BigInt(own.deny)) | BigInt(own.allow);
  return (p & VIEW_CHANNEL) !== 0n;
}

async function allMembers(ctx: DiscordCtx, guildId: string): Promise<Member[]> {
  const out: Member[] = [];
  let after = '0';
  for (;;) {
    const page = z.array(member).parse(await discordGet(ctx, `/guilds/${guildId}/members`, { limit: MEMBER_LIMIT, after }));
    out.push(...page);
    const last = page.at(-1)?.user.id;
    if (page.length < MEMBER_LIMIT || !last) return out;
    after = last;
  }
}

/**
 * The readers of a guild's private channels (`discord:channel:<id>`): every member (`GET /guilds/{id}/members`, which
 * needs the bot's Server Members privileged intent) whose roles and overwrites let them view the channel, from the
 * guild's roles and owner (`GET /guilds/{id}`). A 403 (the intent is off) keeps the groups as they were and says so.
 */
export async function readChannelViewers(ctx: DiscordCtx, guildId: string, channels: readonly { id: string; overwrites: readonly Overwrite[] }[]): Promise<{ identities?: SourceIdentities; notices?: string[] }> {
  if (channels.length === 0) return {};
  let g: z.infer<typeof guild>;
  let members: Member[];
  try {
    g = guild.parse(await discordGet(ctx, `/guilds/${guildId}`));
    members = await allMembers(ctx, guildId);
  } catch (err) {
    if (!(err instanceof VendorHttpError) || err.status !== 403) throw err;
    return {
      notices: [
        `Discord refused the member list of server ${guildId} (turn on the bot's Server Members privileged intent): the readers of its ${channels.length} private channel(s) were not updated.`,
      ],
    };
  }
  const people = members.filter((m) => !m.user.bot);
  const accounts = people.map((m) => ({ account_id: discordAccount(m.user.id), email: null, display_name: m.nick ?? m.user.global_name ?? m.user.username }));
  const groups = channels.map((c) => ({
    group_id: channelGroup(c.id),
    members: people.filter((m) => canView({ id: m.user.id, roles: m.roles }, g, c.overwrites)).map((m) => discordAccount(m.user.id)),
  }));
  return { identities: { accounts, groups } };
}
