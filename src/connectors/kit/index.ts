/**
 * The connector kit: everything a kind folder (src/connectors/<kind>/) may import besides its vendor's SDK.
 * The contract it implements, the vendor errors the sync engine understands, one HTTP helper that classifies
 * vendor answers, Retry-After parsing and backoff, settings helpers, and the few platform utilities kinds need.
 */
export type {
  ActionDefinition,
  AnyKind,
  AuthType,
  ConnectorCategory,
  ConnectorGroup,
  CredentialCheck,
  KindDefinition,
  OAuthCapability,
  Page,
  SourceAcl,
  SourceIdentities,
  SourceContext,
  SourceDocument,
  StoredRef,
  SyncCapability,
  SyncMode,
  UsageRecord,
  VendorLimits,
  WebhookCapability,
  WebhookVerification,
} from './contract.ts';
export { CONNECTOR_GROUPS } from './contract.ts';
export { authErrorMessage, findVendorError, rateLimitFromResponse, SourceSettingsError, VendorAuthError, VendorRateLimitedError } from './errors.ts';
export { checkGoogleResponse, GOOGLE_RATE_LIMIT_REASONS, type GoogleCheck, type GoogleError, googleErrorReasons } from './google.ts';
export { GraphMembersRefused, type GraphUserMember, graphGroupUsers } from './graph-members.ts';
export { bearer, checkResponse, joinUrl, VendorHttpError, type VendorRequest, vendorFetch, vendorJson } from './http.ts';
export { parseRetryAfter, rateLimitDelayMs } from './limits.ts';
export { checkEgressOf, fetchPublic, type PublicAnswer, type PublicRequest } from './public-fetch.ts';
export { commonSettings, siteUrl } from './settings.ts';
export { abortableSleep } from './sleep.ts';
export { validateWith } from './validate.ts';
export { constantTimeEqual } from '../../platform/secrets.ts';
export { type FolderState, folderSettingsSchema, folderStateSchema, type ParsedFile, parseFile, parseHtml, scanFolder, SUPPORTED_EXTENSIONS, formatOf } from '../../documents/files/index.ts';
