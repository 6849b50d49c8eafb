export { aiUsageSynced, detectFindings, FINDING_RULES, type Finding, type FindingRule, listFindings, replacePolicy, SPIKE_WINDOW_DAYS, spikeDays } from './findings.ts';
export { type AiUsagePolicy, aiUsagePolicySchema, DEFAULT_POLICY, getPolicy, putPolicy, sanctioned } from './policy.ts';
export { csvCell, queryUsage, USAGE_DIMENSIONS, USAGE_FILTERS, type UsageAnswer, type UsageDimension, type UsageFilter, type UsageQuery, type UsageRow, usageCsv } from './query.ts';
export { upsertUsage, usageRecordSchema } from './store.ts';
