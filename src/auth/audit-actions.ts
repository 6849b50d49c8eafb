/** `auth.sso.*` audit actions, readable with GET /v1/audit?action=auth.sso*. */
export const SsoAudit = {
  samlConfigured: 'auth.sso.saml_configured',
  oidcConfigured: 'auth.sso.oidc_configured',
  configRejected: 'auth.sso.config_rejected',
  groupMappingUpdated: 'auth.sso.group_mapping_updated',
  configUpdated: 'auth.sso.config_updated',
  debugToggled: 'auth.sso.debug_toggled',
  testRun: 'auth.sso.test_run',
  loginSucceeded: 'auth.sso.login_succeeded',
  loginFailed: 'auth.sso.login_failed',
  logout: 'auth.sso.logout',
  userDisabled: 'auth.sso.user_disabled',
  userEnabled: 'auth.sso.user_enabled',
} as const;
