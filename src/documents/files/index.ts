export { type JsonlDocument, jsonlDocument } from './jsonl.ts';
export { type FileFormat, formatOf, type ParsedFile, parseFile, parseHtml, SUPPORTED_EXTENSIONS } from './parsers.ts';
export { type FolderSettings, type FolderState, folderSettingsSchema, folderStateSchema, type ScanResult, scanFolder } from './scan.ts';
