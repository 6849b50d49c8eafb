export { type ExecuteRequest, type ExecuteResponse, executeAction } from './actions/execute.ts';
export { planWithRules } from './actions/rules.ts';
export { catalogEntry, getKind, listKinds, setFilesystemRoots } from './catalog.ts';
export type { AnyKind, KindDefinition, SourceContext, SourceDocument, SyncMode } from './kit/contract.ts';
export type { ConnectorDeps, DocumentStore } from './deps.ts';
export { completeOAuth, createOAuthUrl, currentOAuthTokens, OAUTH_CALLBACK_PATH, type OAuthCallbackOutcome } from './oauth/flow.ts';
export { claimIngestedFrom, completeLocalScan, ensureLocalSource, localSourceState } from './local-sources.ts';
export { PUSH_CONNECTOR_TYPE, requirePushTarget } from './push.ts';
export {
  completeOAuthCallback,
  createConnector,
  describeConnector,
  oauthUrlFor,
  removeConnector,
  replaceCredentials,
  setPaused,
} from './service.ts';
export { CONNECTOR_EVENTS, CONNECTOR_STATES, type ConnectorEvent, type ConnectorState, nextState, TRANSITIONS } from './states.ts';
export {
  type CatalogEntry,
  type ConnectorDetails,
  catalogEntrySchema,
  type ConnectorListItem,
  type CreatedConnector,
  connectorDetailsSchema,
  connectorListItemSchema,
  createdConnectorSchema,
  SYNC_TYPES,
  type SyncRequested,
  type SyncRun,
  type SyncType,
  syncRequestedSchema,
  syncRunSchema,
} from './schemas.ts';
export {
  applyTransition,
  type ConnectorRecord,
  countConnectorDocuments,
  getConnector,
  listConnectors,
  updateConnectorFields,
} from './store.ts';
export { createWebhookJobHandler, enableWebhook, receiveWebhook, WEBHOOK_JOB, WEBHOOK_JOB_KIND, type WebhookOutcome, webhookDeliveryPath } from './webhooks.ts';
