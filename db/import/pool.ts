// Worker threads for an import. The import writes the mirror in one synchronous transaction (nothing else
// may run on the connection in between), so it cannot await anything: it hands the workers the file (shared
// memory) and the job table, and then both sides claim jobs from one shared counter. The importing thread
// takes results as they arrive (receiveMessageOnPort) and, whenever the next result it needs is not there
// yet, prepares an unclaimed job itself instead of waiting: on two cores one worker validates while this
// thread writes, and this thread validates too whenever the writes are ahead.

import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { CONTROL_SLOTS, NEXT, SIGNAL, STOP, type JobTable } from './jobs.ts';
import type { Begin, Reply } from './worker.ts';

/** A worker that has claimed a job and posted nothing for this long is taken for dead: its jobs are redone here. */
const STALL_MS = 60_000;

export class ImportPool {
  private readonly ctl = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
  private readonly ports: MessagePort[] = [];
  private readonly workers: Worker[] = [];
  private jobs: JobTable | null = null;
  private readonly mine = new Set<number>();

  /**
   * Starts the threads now, so they boot while the file is read and split. `stallMs`: how long a claimed job
   * may go unanswered before its worker is taken for dead (tests shorten it).
   */
  constructor(size: number, private readonly stallMs = STALL_MS) {
    for (let i = 0; i < size; i++) {
      // Results come back on a channel of their own: this thread reads it synchronously, without an event loop.
      const { port1, port2 } = new MessageChannel();
      this.ports.push(port1);
      // TypeScript like the rest of the mirror: the .mjs entry registers tsx first (as service/validation-worker.mjs does).
      // A young generation four times the default: validating allocates much short-lived garbage (GeographicLib
      // returns objects on every call): half as many collections, each as cheap, cut the thread's GC time by a third.
      const worker = new Worker(new URL('./worker.mjs', import.meta.url), {
        workerData: { ctl: this.ctl, port: port2 }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: 64 },
      });
      // A worker that fails to start or dies claims no more jobs; the one it had is redone here (see collect()).
      worker.on('error', () => {});
      worker.unref();
      this.workers.push(worker);
    }
  }

  /** Hands over the file and the jobs; from now on every job is claimed exactly once, by a worker or by claim(). */
  begin(begin: Begin): void {
    this.jobs = begin.jobs;
    for (const w of this.workers) w.postMessage(begin);
  }

  /** The next unclaimed job, now this thread's; -1 when all are claimed. */
  claim(): number {
    const j = Atomics.add(this.ctl, NEXT, 1);
    if (j >= this.jobs!.count) return -1;
    this.mine.add(j);
    return j;
  }

  /** Takes the results that have arrived, without waiting; true when there were any. */
  drain(results: Map<number, Reply>): boolean {
    let got = false;
    for (const port of this.ports) {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
        const reply = m.message as Reply;
        if (!results.has(reply.job)) results.set(reply.job, reply);
        got = true;
      }
    }
    return got;
  }

  /**
   * Waits (blocking this thread) for results. `results` collects every reply; returns when at least one more
   * arrived, or after a stall, with the jobs a worker claimed but never answered (to redo here).
   */
  collect(results: Map<number, Reply>): number[] {
    const deadline = Date.now() + this.stallMs;
    for (;;) {
      const seen = Atomics.load(this.ctl, SIGNAL);
      if (this.drain(results)) return [];
      if (Date.now() > deadline) {
        Atomics.store(this.ctl, STOP, 1);
        const claimed = Math.min(Atomics.load(this.ctl, NEXT), this.jobs!.count);
        const lost: number[] = [];
        for (let j = 0; j < claimed; j++) if (!results.has(j) && !this.mine.has(j)) lost.push(j);
        for (const j of lost) this.mine.add(j);
        return lost;
      }
      Atomics.wait(this.ctl, SIGNAL, seen, 200);
    }
  }

  /** Ends a worker at once, as a crash would (tests). */
  kill(i: number): Promise<number> {
    return this.workers[i]!.terminate();
  }

  /** Stops the workers (they finish the job at hand and exit); never waits for them. */
  close(): void {
    Atomics.store(this.ctl, STOP, 1);
    for (const port of this.ports) port.close();
    for (const w of this.workers) void w.terminate().catch(() => {});
  }
}

