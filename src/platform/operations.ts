/**
 * Operation names shared by routes, MCP tools, permission checks and audit events.
 * Audit `action` values are these strings.
 */
export const Ops = {
  apiKeyCreated: 'apikey.created',
  apiKeyRevoked: 'apikey.revoked',
  auditRead: 'audit.read',
  /** A client went over the failed-authentication limit (once per block, in the default tenant: a failed key names none). */
  authThrottled: 'auth.failed_attempts_throttled',
  aclBypassed: 'acl.bypassed',
  identityMapped: 'identity.mapped',
  /** An AI-usage finding (docs/ai-usage.md), recorded once when first detected. */
  aiUsageFinding: 'ai_usage.finding',
  aiUsagePolicyUpdated: 'ai_usage.policy_updated',
  connectorCreated: 'connector.created',
  connectorDeleted: 'connector.deleted',
  connectorPaused: 'connector.paused',
  connectorResumed: 'connector.resumed',
  connectorSyncStarted: 'connector.sync_started',
  connectorSyncCompleted: 'connector.sync_completed',
  connectorSyncFailed: 'connector.sync_failed',
  connectorOAuthCompleted: 'connector.oauth_completed',
  connectorCredentialsReplaced: 'connector.credentials_replaced',
  connectorWebhookEnabled: 'connector.webhook_enabled',
  connectorActionExecuted: 'connector.action_executed',
  vec2vecTrain: 'vec2vec.train_started',
  vec2vecDelete: 'vec2vec.deleted',
  vec2vecTrainingCancelled: 'vec2vec.training_cancelled',
  federationQuery: 'federation.query',
  federationForget: 'federation.forget',
  federationForgetLifted: 'federation.forget_lifted',
  federationNodeRegistered: 'federation.node_registered',
  federationNodeRemoved: 'federation.node_removed',
  storageBackup: 'storage.backup',
} as const;
export type Op = (typeof Ops)[keyof typeof Ops];
