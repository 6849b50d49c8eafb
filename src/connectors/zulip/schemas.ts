import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/** A Zulip bot's or user's email and API key (HTTP Basic `email:api_key`, zulip.com/api/http-headers). */
export const zulipCredentials = z
  .object({
    email: z.email().describe("the email of the Zulip bot or user the API key belongs to (a bot's is like reader-bot@acme.zulipchat.com)"),
    api_key: z.string().min(1).describe('its API key (Personal settings → Account & privacy → API key, or Settings → Bots for a bot)'),
  })
  .strict();
export type ZulipCredentials = z.infer<typeof zulipCredentials>;

export const zulipSettings = z
  .object({
    site_url: siteUrl('your Zulip organization: https://acme.zulipchat.com or a self-hosted server such as https://chat.example.com'),
    channels: z.array(z.string().min(1)).optional().describe('channel (stream) names or ids to sync (default: every channel the account can read)'),
    sync_private: z.boolean().default(false).describe('also sync private (invite-only) channels the account is subscribed to'),
    include_archived: z.boolean().default(false).describe('also sync archived channels'),
    ...commonSettings,
  })
  .strict();
export type ZulipSettings = z.infer<typeof zulipSettings>;
