import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/**
 * An admin API key (Admin → API → Keys; "Global" read scope or granular `topics:read`, `categories:list`,
 * `posts:list`) and the username it acts as (sent as `Api-Key` / `Api-Username`). Discourse has no OAuth 2.0 for its
 * API: its "User API keys" are a Discourse-specific key handshake (README § Auth).
 */
export const discourseCredentials = z
  .object({
    api_key: z.string().trim().min(1).describe('a Discourse API key (Admin → API → New API key), sent as the Api-Key header'),
    api_username: z
      .string()
      .trim()
      .min(1)
      .describe('the username requests act as (Api-Username): "system" for an all-users key, else the key\'s user; only what this user may read is synced'),
  })
  .strict();
export type DiscourseCredentials = z.infer<typeof discourseCredentials>;

/** A category by numeric id or slug. */
const categoryRef = z.union([z.number().int().positive(), z.string().trim().regex(/^[\w-]+$/, 'a category slug such as "support" or its numeric id')]);

export const discourseSettings = z
  .object({
    site_url: siteUrl('the forum, e.g. https://forum.example.com (self-hosted or hosted by Discourse)'),
    categories: z
      .array(categoryRef)
      .min(1)
      .optional()
      .describe('only these categories (ids or slugs) and their subcategories; default every category the user can read'),
    ...commonSettings,
  })
  .strict();
export type DiscourseSettings = z.infer<typeof discourseSettings>;
