/**
 * Imports: exports people already have on disk (a Slack export's channels live in the Slack connector's folder) read
 * into documents — zips and folders of exported pages (Notion, Confluence), CSV files with mapped columns.
 */
export { type ArchiveFiles, commonRoot, openArchive } from './archive.ts';
export { type ArchiveImportSummary, archiveDocuments, type ColumnMapping, csvDocuments, recordDocuments, titleFromPath } from './files.ts';
