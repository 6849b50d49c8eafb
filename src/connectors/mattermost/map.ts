import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

export const mattermostUser = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  nickname: z.string().optional(),
  delete_at: z.number().optional(),
  is_bot: z.boolean().optional(),
});
export type MattermostUser = z.infer<typeof mattermostUser>;

export const mattermostChannel = z.object({
  id: z.string(),
  team_id: z.string(),
  type: z.string(),
  name: z.string(),
  display_name: z.string(),
  delete_at: z.number().optional(),
});
export type MattermostChannel = z.infer<typeof mattermostChannel>;

export const mattermostPost = z.object({
  id: z.string(),
  create_at: z.number(),
  update_at: z.number(),
  edit_at: z.number().optional(),
  delete_at: z.number(),
  user_id: z.string(),
  channel_id: z.string(),
  root_id: z.string().default(''),
  message: z.string().default(''),
  type: z.string().default(''),
  props: z
    .object({
      override_username: z.string().optional(),
      attachments: z.array(z.object({ pretext: z.string().optional(), title: z.string().optional(), text: z.string().optional(), fallback: z.string().optional() })).optional(),
    })
    .loose()
    .optional(),
  metadata: z.object({ files: z.array(z.object({ name: z.string() })).optional() }).loose().optional(),
});
export type MattermostPost = z.infer<typeof mattermostPost>;

export const postList = z.object({ order: z.array(z.string()), posts: z.record(z.string(), mattermostPost) });

export interface ChannelRef {
  readonly id: string;
  readonly name: string;
  readonly display: string;
  readonly team: string;
  readonly private: boolean;
}

export const postExternalId = (channelId: string, postId: string) => `post:${channelId}:${postId}`;
export const channelGroup = (channelId: string) => `mattermost:channel:${channelId}`;
export const mattermostAccount = (userId: string) => `mattermost:${userId}`;

/** Private channels (type `P`) → their members' group; public ones (`O`) → anyone in the tenant. */
export function channelAcl(c: Pick<ChannelRef, 'id' | 'private'>): SourceAcl {
  return c.private ? { groups: [channelGroup(c.id)] } : { public: true };
}

export function displayName(u: MattermostUser): string {
  const full = [u.first_name, u.last_name].filter((x) => x?.trim()).join(' ');
  return full || u.nickname || u.username;
}

/** Join/leave, header changes and other `system_*` posts are housekeeping. */
export const isContentPost = (p: MattermostPost) => p.delete_at === 0 && !p.type.startsWith('system_') && postText(p).trim() !== '';

/** The message (Markdown as written), integration attachments' pretext/title/text, then file names. */
export function postText(p: MattermostPost): string {
  const parts = [p.message];
  for (const a of p.props?.attachments ?? []) {
    const body = [a.title, a.text].filter((x): x is string => Boolean(x?.trim()));
    parts.push(...[a.pretext, ...(body.length ? body : [a.fallback])].filter((x): x is string => Boolean(x?.trim())));
  }
  const files = p.metadata?.files?.map((f) => f.name) ?? [];
  if (files.length) parts.push(`Attachments: ${files.join(', ')}`);
  return parts.filter((x) => x.trim()).join('\n');
}

export function postToDocument(site: string, channel: ChannelRef, p: MattermostPost, users: Record<string, string>): SourceDocument {
  const author = p.props?.override_username || users[p.user_id] || p.user_id;
  const reply = p.root_id !== '';
  return {
    external_id: postExternalId(channel.id, p.id),
    title: `~${channel.display}${reply ? ' (thread reply)' : ''} — ${author}`,
    content: postText(p),
    url: `${site.replace(/\/+$/, '')}/${channel.team}/pl/${p.id}`,
    author,
    document_type: reply ? 'thread_reply' : 'message',
    created_at: new Date(p.create_at).toISOString(),
    updated_at: new Date(Math.max(p.update_at, p.edit_at ?? 0, p.create_at)).toISOString(),
    metadata: { team: channel.team, channel: channel.name, channel_id: channel.id, post_id: p.id, user_id: p.user_id, ...(reply ? { root_id: p.root_id } : {}) },
    acl: channelAcl(channel),
  };
}

/** The latest change a post records (created, edited, deleted): what `since` compares with. */
export const changedAt = (p: MattermostPost) => Math.max(p.create_at, p.update_at, p.edit_at ?? 0, p.delete_at);
