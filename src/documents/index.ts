export { type Chunk, chunkDocument, type ChunkOptions } from './chunker.ts';
export { contentHash } from './hash.ts';
export { embedPendingChunks, EMBED_JOB_KIND, embedJobHandler } from './embed.ts';
export { searchPassages } from './search.ts';
export {
  countDocuments,
  deleteConnectorDocuments,
  deleteDocuments,
  getDocument,
  listExternalIds,
} from './store.ts';
export { upsertDocuments } from './upsert.ts';
export {
  DEFAULT_INDEX_SETTINGS,
  type DocumentInput,
  documentInputSchema,
  type DocumentsDeps,
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
} from './types.ts';
export {
  type FolderSettings,
  folderSettingsSchema,
  type FolderState,
  folderStateSchema,
  parseFile,
  type ScanResult,
  scanFolder,
  SUPPORTED_EXTENSIONS,
} from './files/index.ts';
