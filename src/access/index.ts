export {
  type ApiKeyRecord,
  authenticateKey,
  createApiKey,
  ensureTenant,
  hashKey,
  KEY_PREFIX,
  listApiKeys,
  revokeApiKey,
  tenantExists,
  upsertBootstrapKey,
} from './api-keys.ts';
export { can, PERMISSIONS, type Permission, type Principal, ROLE_PERMISSIONS, ROLES, type Role } from './permissions.ts';
export { createTokenBucketLimiter, type RateLimiter } from './rate-limit.ts';
