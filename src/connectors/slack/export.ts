import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import { isContentMessage, messageToDocument, type SlackChannelRef, type SlackMessage } from './map.ts';

/**
 * A Slack workspace export (Workspace settings → Import/Export data), zipped or unpacked: `users.json`,
 * `channels.json` (public channels), `groups.json` (private channels, in exports that include them) and one folder
 * per channel of `YYYY-MM-DD.json` message arrays. Each message becomes the same document the Slack connector makes
 * of it (mentions and links rendered to text, thread replies marked), so an export and a later live sync agree.
 * Direct messages (`dms.json`, `mpims.json`) are left out: a workspace import is for channels.
 */
export interface SlackExportFiles {
  readonly paths: readonly string[];
  readText(relativePath: string): Promise<string>;
}

const userSchema = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    real_name: z.string().optional(),
    deleted: z.boolean().optional(),
    profile: z.object({ real_name: z.string().optional(), display_name: z.string().optional(), email: z.string().optional() }).loose().optional(),
  })
  .loose();
const channelSchema = z.object({ id: z.string(), name: z.string(), members: z.array(z.string()).optional(), is_archived: z.boolean().optional() }).loose();
/** Exports write `null` for absent fields (`"bot_id": null`): read as absent. */
const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const messageSchema = z
  .object({
    ts: z.string(),
    text: opt(z.string()),
    user: opt(z.string()),
    subtype: opt(z.string()),
    thread_ts: opt(z.string()),
    edited: opt(z.object({ ts: z.string() }).loose()),
    username: opt(z.string()),
    bot_id: opt(z.string()),
    bot_profile: opt(z.object({ name: opt(z.string()) }).loose()),
    attachments: opt(z.array(z.object({ fallback: opt(z.string()), pretext: opt(z.string()), title: opt(z.string()), text: opt(z.string()) }).loose())),
  })
  .loose();

const parseOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** Where the export's files sit: the folder holding `channels.json` and `users.json` (`''` = the top). */
export function slackExportRoot(paths: readonly string[]): string | null {
  for (const p of paths) {
    if (!p.endsWith('channels.json')) continue;
    const root = p.slice(0, -'channels.json'.length);
    if (root !== '' && !root.endsWith('/')) continue;
    if (paths.includes(`${root}users.json`)) return root;
  }
  return null;
}

export interface SlackExportSummary {
  readonly channels: number;
  readonly users: number;
  readonly messages: number;
  /** Entries of day files that were not messages (no `ts`, fields of the wrong type). */
  readonly skippedMessages: number;
  /** Day files that were not a JSON array of messages. */
  readonly unreadable: readonly string[];
}

async function readJson<T>(files: SlackExportFiles, p: string, schema: z.ZodType<T>): Promise<T> {
  let value: unknown;
  try {
    value = JSON.parse(await files.readText(p));
  } catch (err) {
    throw new Error(`${p}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${p}: not a Slack export file (${parsed.error.issues[0]?.message ?? 'unexpected shape'})`);
  return parsed.data;
}

/**
 * Reads an export and yields one document per message that carries knowledge (joins and other housekeeping are
 * left out, as the connector leaves them out). `teamUrl` (`https://acme.slack.com`) gives documents their
 * permalinks; exports do not name the workspace's URL. Private channels' documents are readable by their members
 * (email where users.json has one, else `slack:<user id>`); public channels by everyone.
 */
export async function* slackExportDocuments(
  files: SlackExportFiles,
  opts: { teamUrl?: string; onSummary?: (s: SlackExportSummary) => void } = {},
): AsyncGenerator<SourceDocument> {
  const root = slackExportRoot(files.paths);
  if (root === null) throw new Error('not a Slack export: no channels.json beside users.json');
  const users = await readJson(files, `${root}users.json`, z.array(userSchema));
  const names: Record<string, string> = {};
  const emails: Record<string, string> = {};
  for (const u of users) {
    names[u.id] = u.profile?.real_name || u.real_name || u.profile?.display_name || u.name || u.id;
    const email = u.profile?.email?.trim().toLowerCase();
    if (email) emails[u.id] = email;
  }
  const publicChannels = await readJson(files, `${root}channels.json`, z.array(channelSchema));
  const privateChannels = files.paths.includes(`${root}groups.json`) ? await readJson(files, `${root}groups.json`, z.array(channelSchema)) : [];
  const channels = [...publicChannels.map((c) => ({ c, isPrivate: false })), ...privateChannels.map((c) => ({ c, isPrivate: true }))];
  let messages = 0;
  let skippedMessages = 0;
  const unreadable: string[] = [];
  for (const { c, isPrivate } of channels) {
    const ref: SlackChannelRef = { id: c.id, name: c.name, is_private: isPrivate };
    const acl: SourceAcl = isPrivate ? { users: (c.members ?? []).map((m) => emails[m] ?? `slack:${m}`) } : { public: true };
    const dayFiles = files.paths.filter((p) => p.startsWith(`${root}${c.name}/`) && /\/\d{4}-\d{2}-\d{2}\.json$/.test(p));
    for (const day of dayFiles) {
      const parsed = z.array(z.unknown()).safeParse(parseOrNull(await files.readText(day)));
      if (!parsed.success) {
        unreadable.push(day);
        continue;
      }
      for (const raw of parsed.data) {
        const one = messageSchema.safeParse(raw);
        if (!one.success) {
          skippedMessages++;
          continue;
        }
        const m = one.data as SlackMessage;
        if (!isContentMessage(m)) continue;
        const doc = messageToDocument(opts.teamUrl ?? '', ref, m, names);
        messages++;
        yield { ...doc, url: opts.teamUrl ? doc.url : undefined, acl };
      }
    }
  }
  opts.onSummary?.({ channels: channels.length, users: users.length, messages, skippedMessages, unreadable });
}
