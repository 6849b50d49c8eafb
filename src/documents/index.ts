export { ALL_DOCUMENTS, aclCondition, type DocumentAcl, documentAclSchema, EVERYONE, personPrincipals, type Viewer, viewerKey } from './acl.ts';
export { type Chunk, type ChunkOptions, chunkDocument } from './chunker.ts';
export { EMBED_JOB_KIND, embedJobHandler, embedPendingChunks } from './embed.ts';
export {
  type FolderSettings,
  type FolderState,
  folderSettingsSchema,
  folderStateSchema,
  parseFile,
  type ScanResult,
  SUPPORTED_EXTENSIONS,
  scanFolder,
} from './files/index.ts';
export { contentHash } from './hash.ts';
export { embedQuery, searchPassages } from './search/index.ts';
export {
  countDocuments,
  deleteConnectorDocuments,
  deleteDocuments,
  getDocument,
  listExternalIds,
  listStoredDocuments,
} from './store.ts';
export {
  DEFAULT_INDEX_SETTINGS,
  type DocumentInput,
  type DocumentsDeps,
  documentInputSchema,
  type EmbedMode,
  type FusionMethod,
  type IndexSettings,
  MAX_BATCH_DOCUMENTS,
  type Passage,
  type SearchFilters,
  type SearchMode,
  type SearchRequest,
  type StoredDocument,
  type UpsertResult,
  withoutNul,
} from './types.ts';
export { type PassageRecord, passageSchema, storedDocumentSchema, upsertResultSchema } from './schemas.ts';
export { upsertDocuments } from './upsert.ts';
