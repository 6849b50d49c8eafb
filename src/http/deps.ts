import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { FailureThrottle, Principal, RateLimiter } from '../access/index.ts';
import type { Config } from '../config/index.ts';
import type { DocumentStore } from '../connectors/index.ts';
import type { EmbeddingRegistry } from '../embeddings/index.ts';
import type { FederationService } from '../federation/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { TranslationRegistry } from '../translations/index.ts';

/** Resolves a non-API-key credential (an SSO session cookie) to a principal, or null. */
export type RequestAuthenticator = (request: FastifyRequest) => Promise<Principal | null>;

/**
 * Everything the HTTP layer needs, composed once in src/main. Capabilities add their services here
 * as optional fields so tests can build an app with only what they exercise.
 */
export interface AppDeps {
  readonly config: Config;
  readonly db: DatabaseExecutor;
  readonly log: Logger;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly rateLimiter: RateLimiter;
  /** Failed API-key attempts per client address (429 over the limit); absent = not limited. */
  readonly authFailures?: FailureThrottle;
  /**
   * A per-run key (`atrium serve` on embedded storage) written owner-only to this machine's running-services record
   * (src/platform/running.ts), so the same user's CLI reaches the service without a login; admin of tenant `default`,
   * accepted only by this process while it runs.
   */
  readonly localCliKey?: string;
  /** Tried in order after the bearer API key; the SSO capability adds its session authenticator. */
  readonly authenticators?: readonly RequestAuthenticator[];
  /** Embedding models (src/embeddings): the default for new documents and queries, and every other configured one. */
  readonly embeddings?: EmbeddingRegistry;
  /** Embedding-space translations (src/translations): shipped built-ins plus each tenant's trained ones. */
  readonly translations?: TranslationRegistry;
  /** Where connectors and sync write documents (the documents module, adapted in src/main). */
  readonly connectorDocuments?: DocumentStore;
  /** Federated query state (src/federation): result cache, remote node health. */
  readonly federation?: FederationService;
}
