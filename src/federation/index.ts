export { canonicalJson, sha256Hash } from './canonical.ts';
export { type DampingPlan, DEFAULT_DAMPING_THRESHOLD, planDamping } from './damping.ts';
export { DEFAULT_DECAY_LAMBDA, type TemporalStatus, temporalDecay, temporalStatus } from './decay.ts';
export type { FederationDeps, FederationService, RemoteNodeInfo } from './deps.ts';
export { computeUserEntropy, ENTROPY_LEVELS, type EntropyLevel, entropyLevel, LEVEL_BOUNDS, levelBounds, type UserEntropy } from './entropy.ts';
export { type ForgetRequest, forget, liftForget } from './forget.ts';
export { INTENT_DIMENSIONS, type IntentSignal, inferIntent } from './intent.ts';
export type { FederatedItem } from './item.ts';
export { deleteNode, listNodes, listNodesWithKeys, NODE_NAME, nodeBaseUrl, type RemoteNode, registerNode } from './nodes.ts';
export { federationLoop, type RunOptions, runFederatedQuery } from './query.ts';
export { type NodeRegistration, type RegistrationDeps, registerRemoteNode, removeRemoteNode } from './registration.ts';
export { HTTP_NODES_FIELD, type NodesField } from './select.ts';
export { CONTEXT_TERMS_HEADER, CRITICAL_FIRST_HEADER, decodeContextTerms, FORWARDED_FOR_HEADER, HOP_HEADER, leadsBackHere, ORIGIN_HEADER } from './remote.ts';
export { describeRemoteNodes } from './remote-info.ts';
export {
  DEFAULT_MAX_RESULTS,
  type FederatedRequestInput,
  federatedRequestSchema,
  filtersSchema,
  intentSignalSchema,
  MAX_RESULTS_LIMIT,
  normalizeRequest,
  queryHash,
} from './request.ts';
export { type FederatedResponse, federatedItemSchema, federatedResponseSchema } from './schema.ts';
export { createFederationService } from './service.ts';
export { federationOrigin, findDocuments, insertTombstones, liftTombstone, listLocalSources, listTombstones, resetFederationOrigin, sourceModels, type TombstoneRecord } from './store.ts';
export { type Translation, type Translator, translatorFrom } from './translate.ts';
