export { cancelJobs, type EnqueueInput, enqueueJob, getJob, type Job, type JobStatus, rowToJob } from './queue.ts';
export { defineJobKind, enqueue, type JobKind, jobHandler, namedByActiveJobs, type TypedJobHandler } from './kinds.ts';
export {
  backoffMs,
  createWorker,
  JobCancelledError,
  type JobContext,
  type JobHandler,
  NonRetriableError,
  RetryAfterError,
  type Worker,
  type WorkerOptions,
} from './worker.ts';
