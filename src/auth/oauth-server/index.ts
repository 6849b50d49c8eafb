export { OAuthAudit } from './audit-actions.ts';
export {
  answerConsent,
  type AuthorizeQuery,
  checkAuthorizeRequest,
  decideRequest,
  issueCode,
  loadPendingRequest,
  type PendingRequest,
  permissionSummary,
  savePendingRequest,
  setRequestKey,
  withParams,
} from './authorize.ts';
export { authenticateClient, findClient, registerClient, redirectUriProblem } from './clients.ts';
export { consentPage, errorPage, OAUTH_FLOW_COOKIE, OAUTH_RETURN_COOKIE, pageHeaders, resumeLocation, returnCookie, signInPage } from './consent-page.ts';
export { OAuthError } from './errors.ts';
export { type GrantSubject, type GrantView, grantablePermissions, listGrants, listGrantsFor, revokeGrant, revokeGrantAs } from './grants.ts';
export { AUTHORIZATION_SERVER_PATH, authorizationServerMetadata, bearerChallenge, OAUTH_PATHS, PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from './metadata.ts';
export { authenticateAccessToken } from './principal.ts';
export { exchangeCode, type OAuthDeps, refreshTokens, revokeToken, type TokenForm } from './token.ts';
export { ACCESS_TOKEN_TTL_S, CODE_TTL_S, GRANT_TTL_S, isAccessToken, REFRESH_TOKEN_TTL_S } from './tokens.ts';
