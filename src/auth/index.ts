export { SsoAudit } from './audit-actions.ts';
export { configureGroupMapping, configureOidc, configureSaml, configView, problemError, ssoStatus, updateRuntimeConfig } from './config-service.ts';
export { ATTEMPTS_COOKIE, FLOW_COOKIE, readCookie, SESSION_COOKIE, serializeCookie } from './cookies.ts';
export type { Actor, SsoDeps } from './deps.ts';
export { isSecureTransport } from './https.ts';
export { LOOP_LIMIT, type LoginOutcome, oidcCallback, samlCallback, startLogin } from './login.ts';
export { OIDC_CALLBACK_PATH } from './oidc.ts';
export { PROBLEMS, type Problem, type ProblemCode, problem } from './problems.ts';
export { ACS_PATH, spMetadata } from './saml/sp.ts';
export { MAX_SAML_RESPONSE_BYTES } from './saml/validate.ts';
export {
  configViewSchema,
  groupMappingSchema,
  oidcConfigSchema,
  runtimeConfigSchema,
  samlConfigSchema,
  statusSchema,
  testReportSchema,
} from './schemas.ts';
export { createSessionAuthenticator, sessionPrincipal } from './sessions.ts';
export { endSession, setUserDisabledAs } from './user-admin.ts';
export { getSsoConfig } from './store.ts';
export { runSsoTest } from './test-run.ts';
export { listUsers, type UserView } from './users.ts';
