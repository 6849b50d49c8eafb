export { aiUsageSynced } from './findings.ts';
export { upsertUsage, usageRecordSchema } from './store.ts';
