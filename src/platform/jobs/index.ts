export { backoffMs } from '../retry.ts';
export { defineJobKind, enqueue, type JobKind, jobHandler, namedByActiveJobs, type TypedJobHandler } from './kinds.ts';
export { cancelJobs, type EnqueueInput, enqueueJob, getJob, type Job, type JobStatus, rowToJob } from './queue.ts';
export {
  createWorker,
  JOB_BACKOFF_CAP_MS,
  JobCancelledError,
  type JobContext,
  type JobHandler,
  NonRetriableError,
  RetryAfterError,
  type Worker,
  type WorkerOptions,
} from './worker.ts';
