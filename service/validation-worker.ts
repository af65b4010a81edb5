import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './validation-jobs.ts';

parentPort!.on('message', (job: Job) => {
  parentPort!.postMessage(runJob(job));
});
