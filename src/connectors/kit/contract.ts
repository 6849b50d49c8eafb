import type { Logger } from 'pino';
import type { z } from 'zod';

/**
 * Who may read a document at the source, in the one shape every connector stores (the permissions issue enforces it):
 * `users` are lower-cased email addresses where the vendor resolves them, else `<connector_type>:<vendor user id>`;
 * `groups` are `<connector_type>:<vendor group id>` (a space, channel, team, project…) or IdP group names; `domain`
 * lists email domains whose members may read it; `public: true` means anyone in the tenant. No ACL = visible to all;
 * an ACL that names nobody (`{}`) = visible to nobody but an admin's explicit bypass.
 */
export interface SourceAcl {
  readonly public?: boolean;
  readonly domain?: readonly string[];
  readonly users?: readonly string[];
  readonly groups?: readonly string[];
}

/** What a connector turns a vendor object into: the DOC team's DocumentInput shape. */
export interface SourceDocument {
  readonly external_id: string;
  readonly title: string;
  readonly content: string;
  readonly url?: string;
  readonly author?: string;
  readonly document_type?: string;
  readonly created_at?: string;
  readonly updated_at?: string;
  readonly metadata?: Record<string, unknown>;
  /** Who may read it at the source (absent = everyone in the tenant); enforced by retrieval (docs/permissions.md). */
  readonly acl?: SourceAcl;
}

export type SyncMode = 'incremental' | 'full';

/** A document this connector stored earlier: what an incremental sync compares the vendor's listing with. */
export interface StoredRef {
  readonly external_id: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** What every kind's code gets: parsed credentials and settings, a rate-limited fetch, the vendor base URL. */
export interface SourceContext<C, S> {
  readonly connectorId: string;
  readonly tenantId: string;
  readonly credentials: C;
  readonly settings: S;
  /**
   * The vendor API base URL for this connector: `ATRIUM_CONNECTOR_API_URLS[<kind>]` (proxies, tests' fake servers) wins
   * over the kind's `apiBaseUrl(settings)` (an Atlassian site, a self-managed GitLab, a SharePoint tenant); undefined =
   * the vendor's public API.
   */
  readonly apiBaseUrl: string | undefined;
  /** fetch that waits for the connector's token bucket and throws `VendorRateLimitedError` on 429. */
  readonly fetch: typeof fetch;
  /**
   * Checks a URL the kind builds from tenant input (a crawled page, a feed) against the service's egress policy
   * (ATRIUM_EGRESS_ALLOW / ATRIUM_EGRESS_DENY_PRIVATE) before it is fetched; throws EgressDeniedError. `fetch` does not
   * check it: kinds that follow tenant-supplied URLs call this first (and follow no redirect unchecked).
   */
  readonly checkEgress?: (url: string) => Promise<void>;
  /** Waits for a token of the connector's bucket (for SDKs that do not take a custom fetch). */
  readonly acquire: () => Promise<void>;
  readonly signal: AbortSignal;
  readonly now: Date;
  readonly log: Logger;
  /**
   * The connector's stored documents whose external id starts with `prefix` (with their metadata), so an
   * incremental sync can fetch only what changed and report what the vendor no longer lists as `deleted`.
   */
  stored(prefix: string): Promise<readonly StoredRef[]>;
}

/**
 * Who is who at the vendor, for the identity directory behind ACLs (docs/permissions.md): accounts are
 * `<connector_type>:<vendor user id>` with the email the vendor reports (null when it hides it); each group listed is
 * the group's whole current member list (account ids or emails) and replaces what this connector stored for it.
 */
export interface SourceIdentities {
  readonly accounts?: readonly { readonly account_id: string; readonly email?: string | null; readonly display_name?: string | null }[];
  readonly groups?: readonly { readonly group_id: string; readonly members: readonly string[] }[];
}

/**
 * One bucket of an AI provider's usage or cost report (the `llm_providers` group; docs/ai-usage.md). Stored apart from
 * documents in `ai_usage` and read at `GET /v1/ai-usage`; re-reading the same bucket replaces the row with the same
 * `record_id`, so a resumed or repeated sync never counts twice. Never a full API key: only the provider's redacted
 * form or its id.
 */
export interface UsageRecord {
  /** Unique within the connector and stable across syncs (e.g. `usage:completions:2026-11-20:proj_1:key_2:gpt-4.1`). */
  readonly record_id: string;
  /** `usage` = tokens/requests; `cost` = spend (providers report cost apart from usage). */
  readonly kind: 'usage' | 'cost';
  /** The UTC day the bucket starts, `YYYY-MM-DD`. */
  readonly day: string;
  /** Organization / workspace as the provider names it (id or name). */
  readonly workspace?: string | null;
  readonly project?: string | null;
  /** The person: a lower-cased email where the provider gives one, else the provider's user id. */
  readonly user?: string | null;
  /** The API key's id or redacted form (`sk-...abcd`), never the secret. */
  readonly api_key?: string | null;
  readonly model?: string | null;
  readonly requests?: number;
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  /** Spend in US dollars. */
  readonly cost_usd?: number;
  /** Anything else the provider reports (line item, service tier, cached tokens…). */
  readonly metadata?: Record<string, unknown>;
}

export interface Page<P, Cur> {
  readonly documents: readonly SourceDocument[];
  /** Vendor accounts and group memberships read on this page (identity directory). */
  readonly identities?: SourceIdentities;
  /**
   * What the sync could not do but is no reason to fail it (memberships the credential may not read, e.g. a
   * Directory API 403): the completed sync's `status_reason` names them, so an admin sees why a group reaches nobody.
   */
  readonly notices?: readonly string[];
  /** AI-provider usage and cost buckets read on this page (`llm_providers` kinds; stored in `ai_usage`). */
  readonly usage?: readonly UsageRecord[];
  /** External ids the vendor reports as deleted (incremental). */
  readonly deleted?: readonly string[];
  /**
   * What the source still has but could not read this time (a file that fails to parse, an unreadable folder):
   * the stored version is kept (a full sync counts these ids as seen) and the connector's `status_reason`
   * names the first few when the sync completes.
   */
  readonly skipped?: readonly { readonly external_id: string; readonly reason: string }[];
  /**
   * Stored documents the source no longer lists but the kind keeps on purpose (a feed is a window onto its items, not
   * their source of truth): a full sync counts them as seen, so its sweep leaves them, and nothing is reported.
   */
  readonly kept?: readonly string[];
  /** The next page to read, or null when this was the last. */
  readonly next: P | null;
  /** The incremental cursor to store once the whole sync has committed. */
  readonly cursor: Cur | null;
}

export interface SyncCapability<C, S, Cur, P> {
  readonly cursorSchema: z.ZodType<Cur>;
  readonly pageSchema: z.ZodType<P>;
  /** The first page of a sync; `since` is the stored cursor for an incremental sync, null for a full one. */
  start(mode: SyncMode, since: Cur | null, settings: S): P;
  readPage(ctx: SourceContext<C, S>, page: P): Promise<Page<P, Cur>>;
}

export type WebhookVerification = { ok: true } | { ok: false; reason: string };

export interface WebhookCapability<C, S> {
  readonly events: readonly string[];
  /**
   * When the vendor issues the signing secret (Slack: one per app), the credential holding it. Enabling the webhook
   * then generates and returns no secret, and deliveries are verified with the current credential.
   */
  secretFromCredentials?(credentials: C): string | undefined;
  /** A verified URL handshake (Slack `url_verification`): the body to answer with 200, or null for a normal delivery. */
  handshake?(payload: unknown): { challenge: string } | null;
  /** Answer within this many ms even when applying is not finished (the vendor retries after a deadline); the rest completes in the background. */
  readonly ackWithinMs?: number;
  /** The delivery's event name as the vendor states it (headers or payload), for answers that apply nothing (paused connector). */
  eventName(input: { headers: Record<string, string | undefined>; payload: unknown }): string;
  /** Verifies the vendor's signature over the raw body (and timestamp window where the vendor has one). */
  verify(input: { headers: Record<string, string | undefined>; rawBody: string; secret: string; now: Date }): Promise<WebhookVerification>;
  /**
   * Maps a verified delivery to documents to upsert and external ids to delete. `deferred`: applied later by the
   * durable `connector.webhook` job (acknowledged at the deadline), so the payload may be stale — read the vendor's current state.
   */
  changes(
    ctx: SourceContext<C, S>,
    input: { headers: Record<string, string | undefined>; payload: unknown; deferred?: boolean },
  ): Promise<{ documents: SourceDocument[]; deleted: string[]; event: string }>;
}

export interface ActionDefinition<C, S> {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodObject;
  run(ctx: SourceContext<C, S>, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface OAuthCapability {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
  readonly scopeSeparator?: string;
  readonly extraAuthorizeParams?: Record<string, string>;
  /**
   * String fields of the token answer to keep with the tokens and merge into the credentials the kind's code gets
   * (Salesforce's `instance_url`, Zoho's `api_domain`): the kind's credentials schema must accept them.
   */
  readonly tokenFields?: readonly string[];
}

/**
 * What `validate()` found. `settings`: a patch the validation discovered (an Atlassian `cloudId`, a Drive's root id),
 * merged into the connector's settings (and parsed with the kind's schema) when the connector becomes `connected`.
 */
export type CredentialCheck = { ok: true; account?: string; settings?: Record<string, unknown> } | { ok: false; message: string };

export type ConnectorCategory =
  | 'chat'
  | 'document_workspace'
  | 'code_hosting'
  | 'issue_tracker'
  | 'push'
  | 'files'
  | 'crm'
  | 'support'
  | 'llm_provider'
  | 'email'
  | 'calendar'
  | 'work_management'
  | 'web';
/** The spec's catalogue grouping (`GET /v1/connectors/catalog` → `group`); `api` and `filesystem` are `other`. */
export type ConnectorGroup = 'productivity' | 'developer_tools' | 'crm' | 'support' | 'llm_providers' | 'other';
export const CONNECTOR_GROUPS: readonly ConnectorGroup[] = ['productivity', 'developer_tools', 'crm', 'support', 'llm_providers', 'other'];
export type AuthType = 'oauth2' | 'api_key' | 'none';

export interface VendorLimits {
  readonly perSecond?: number;
  readonly perMinute?: number;
  readonly perHour?: number;
}

/** One connector kind: everything about one vendor, in one folder (src/connectors/<kind>/). */
export interface KindDefinition<C, S, Cur = unknown, P = unknown> {
  readonly type: string;
  readonly displayName: string;
  readonly category: ConnectorCategory;
  readonly group: ConnectorGroup;
  /**
   * How a connector of this kind can authenticate, preferred first: `oauth2` (needs `oauth`), `api_key` (a token or key
   * in `credentials`), or `none`. Every SaaS kind of the first four groups offers `oauth2`.
   */
  readonly authTypes: readonly AuthType[];
  readonly credentials: z.ZodType<C>;
  readonly settings: z.ZodType<S>;
  readonly contentTypes: readonly string[];
  readonly vendorLimits: VendorLimits;
  /**
   * The vendor API base from the connector's settings (`site_url` / `base_url`), for vendors with one host per customer;
   * `ATRIUM_CONNECTOR_API_URLS[<kind>]` wins over it. Omitted: the vendor's public API.
   */
  apiBaseUrl?(settings: S): string | undefined;
  /** True when the credentials alone let the connector work (no OAuth redirect needed). */
  hasUsableCredentials(credentials: C): boolean;
  validate?(ctx: SourceContext<C, S>): Promise<CredentialCheck>;
  /**
   * Checks parsed settings against the server before the connector is created (e.g. a folder that must lie under
   * the allowed roots); throws `SourceSettingsError`, which creation answers as 400 naming `settings`.
   */
  checkSettings?(settings: S): Promise<void>;
  readonly sync?: SyncCapability<C, S, Cur, P>;
  readonly webhook?: WebhookCapability<C, S>;
  readonly actions?: readonly ActionDefinition<C, S>[];
  readonly oauth?: OAuthCapability;
}

/** A kind with its types erased; the engine parses credentials and settings with the kind's own schemas. */
export type AnyKind = KindDefinition<unknown, unknown, unknown, unknown>;
