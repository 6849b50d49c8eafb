export {
  acceptBootstrapKey,
  type ApiKeyRecord,
  authenticateKey,
  BOOTSTRAP_PREFIX_LENGTH,
  createApiKey,
  ensureTenant,
  hashKey,
  KEY_PREFIX,
  KEY_USE_WRITE_INTERVAL_MS,
  type KeyUseOptions,
  listApiKeys,
  revokeApiKey,
  tenantExists,
  upsertBootstrapKey,
} from './api-keys.ts';
export { takeBackup } from './backup.ts';
export { normalizeEmail } from './email.ts';
export { issueApiKey, type KeyRequest, revokeApiKeyAs } from './key-admin.ts';
export { issueSetupCode, redeemSetupCode, SETUP_CODE_TTL_MS, setupRequired } from './setup.ts';
export { AI_USAGE_GROUP, can, PERMISSIONS, permissionGroups, type Permission, type Principal, ROLE_PERMISSIONS, ROLES, type Role } from './permissions.ts';
export { createFailureThrottle, createTokenBucketLimiter, type FailureThrottle, type RateLimiter } from './rate-limit.ts';
