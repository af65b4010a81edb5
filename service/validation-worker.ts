import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './validation-jobs.ts';
import { lowerThisThreadPriority } from './thread-priority.ts';

lowerThisThreadPriority();

parentPort!.on('message', (job: Job) => {
  parentPort!.postMessage(runJob(job));
});
