export { cancelConnectorJobs, requestSync, SYNC_JOB_KIND, type SyncRequested, syncDedupeKey, VALIDATE_JOB_KIND } from './request.ts';
export { getRun, recentRuns, type SyncRun } from './runs.ts';
export { dueSync, nextFullAt, nextIncrementalAt, type Schedule, scheduleFor } from './schedule.ts';
