// Worker-thread entry: workers do not inherit the tsx loader that `bin/atrium` registers in the main
// thread, so register it here, then load the TypeScript worker module named in workerData.entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
