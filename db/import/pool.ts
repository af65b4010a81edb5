// Worker threads for an import. The import writes the mirror in one synchronous transaction (nothing else
// may run on the connection in between), so it cannot await anything: it hands the workers the file's name
// and the job table (each thread reads its jobs' bytes itself), and then both sides claim jobs from one shared
// counter, never more than AHEAD jobs past the one the importing thread is writing. The importing thread
// takes results as they arrive (receiveMessageOnPort) and, whenever the next result it needs is not there
// yet, prepares an unclaimed job itself instead of waiting: on two cores one worker validates while this
// thread writes, and this thread validates too whenever the writes are ahead.

import { isMainThread, MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { WorkerPool, workerEntry } from '../../platform/node/worker-pool.ts';
import { AHEAD, CONTROL_SLOTS, NEXT, SIGNAL, STOP, WANTED, type Begin, type JobTable, type Outcome, type Reply, type SplitTailReply } from './protocol.ts';
import type { FileRef } from './file-ref.ts';
import type { TailSplit, TailTables } from './split-scanner.ts';
import { startingYoungGeneration } from './young-generation.ts';

/** The workers' young generation at most (see the constructor); they work at young-generation.ts WORKER_YOUNG_MB. */
export const YOUNG_GENERATION_MB = 16;

/** A worker that has claimed a job and posted nothing for this long is taken for dead: its jobs are redone here. */
const STALL_MS = 60_000;

export class ImportPool {
  private ctl = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
  private readonly ports: MessagePort[] = [];
  private readonly workers: WorkerPool;
  private jobs: JobTable | null = null;
  private run = 0;
  private readonly mine = new Set<number>();
  /** False once a worker has died or stalled: the pool is then not used for another import. */
  healthy = true;

  /**
   * Starts the threads now, so they boot while the file is read and split. `stallMs`: how long a claimed job
   * may go unanswered before its worker is taken for dead (tests shorten it).
   */
  constructor(readonly size: number, private readonly stallMs = STALL_MS, entry: URL = workerEntry('worker', import.meta.url)) {
    // `entry`: from source the TypeScript beside this file; in the built CLI (dist/), the bundled worker beside the bundle.
    // Each thread starts with the young generation it imports with (young-generation.ts WORKER_YOUNG_MB), until all
    // have started (or failed to).
    const started = new Set<number>();
    const restore = startingYoungGeneration();
    const settled = (i: number) => {
      started.add(i);
      if (started.size === size) restore();
    };
    this.workers = new WorkerPool(entry, size, {
      online: settled,
      start: (i) => {
        // Results come back on a channel of their own: this thread reads it synchronously, without an event loop.
        const { port1, port2 } = new MessageChannel();
        this.ports[i] = port1;
        // A young generation of 16 MB: validating allocates much short-lived garbage (GeographicLib returns objects on
        // every call). 64 MB cost 30 MB more peak memory than 32 MB and was no faster importing 250 MB of GeoJSON
        // (interleaved runs, 16.3–17.8 s against 17.7–19.0 s). Importing mirror-import's 100,000 parcels, 16 MB peaked
        // 15–20 MB lower than 32 MB (178–192 MB against 198–207 MB, 3 runs each, on a machine loaded 9–13) for the
        // same CPU time of the process (6.40–6.78 s against 6.51–6.78 s before, interleaved); 8 MB peaked no lower than
        // 32 MB. The importing thread's young generation is capped at 16 MB while it imports (young-generation.ts: V8
        // grew it to 32 MB; the flag that holds it holds this thread's too). Holding both at V8's first size instead
        // (--semi-space-growth-factor=1 from the start) saved 35–50 MB but cost 6–10 % more CPU time and as much wall
        // time (mirror-import pairs at load 2–4: 0.87–0.89x ogr2ogr against 0.74–0.83x); --heap-growing-percent=30 (full collections sooner) saved no more than the runs' spread, nor did
        // giving written jobs' buffers back to the workers to write into again (206 MB without, 212 MB with, 4 pairs at
        // load 2, 2026-11-30).
        // holdGrowth: in a process whose main thread imports (the CLI), the worker holds its young generation's size by
        // the process's flag (young-generation.ts holdWorkerGrowth); in the host, whose import has a thread of its own,
        // the main thread's growth is left alone.
        return { workerData: { port: port2, holdGrowth: isMainThread }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } };
      },
      // A worker that fails to start or dies claims no more jobs, and is not replaced; the one it had is redone here
      // (see collect()).
      lost: (i) => {
        this.healthy = false;
        settled(i);
      },
    });
  }

  /**
   * Has the first worker split the features of `file` from byte `start` on, while this thread splits the bytes
   * before it (geojson-split.ts). The split scans on until ready() (never waiting while the worker is late); take() then
   * has them, or null if the worker could not, died, or took too long.
   */
  splitFrom(file: FileRef, start: number): TailSplit {
    const done = new Int32Array(new SharedArrayBuffer(4));
    this.workers.post(0, { splitTail: { file, start, done } });
    const port = this.ports[0]!;
    const asked = Date.now();
    return {
      start,
      // The split goes on meanwhile rather than wait (split-scanner.ts TailSplit.ready).
      ready: () => Atomics.load(done, 0) !== 0 || !this.healthy,
      take: (): TailTables | null => {
        // Its part is a little smaller than this thread's: twice as long as this thread took (two seconds at least)
        // means it is not coming. (A worker that died is only reported on the event loop, which the split keeps waiting.)
        const deadline = Date.now() + Math.max(2000, 2 * (Date.now() - asked));
        while (Atomics.load(done, 0) === 0) {
          if (!this.healthy || Date.now() > deadline) return null;
          Atomics.wait(done, 0, 0, 50);
        }
        // Its reply is on the channel by now (posted before `done` was set); anything else there is a late job result.
        for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
          if ('splitTail' in (m.message as object)) return (m.message as SplitTailReply).splitTail;
        }
        return null;
      },
    };
  }

  /** Hands over an import; from now on each of its jobs is claimed exactly once, by a worker or by claim(). */
  begin(begin: Omit<Begin, 'run' | 'ctl'>): void {
    this.ctl = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
    this.jobs = begin.jobs;
    this.run++;
    this.mine.clear();
    this.workers.broadcast({ ...begin, run: this.run, ctl: this.ctl });
  }

  /**
   * The next unclaimed job, now this thread's; -1 when all are claimed, -2 when the next one is more than AHEAD
   * past the job this thread needs (wait for the workers' results instead of preparing far ahead).
   */
  claim(): number {
    for (;;) {
      const j = Atomics.load(this.ctl, NEXT);
      if (j >= this.jobs!.count) return -1;
      if (j > Atomics.load(this.ctl, WANTED) + AHEAD) return -2;
      if (Atomics.compareExchange(this.ctl, NEXT, j, j + 1) !== j) continue;
      this.mine.add(j);
      return j;
    }
  }

  /** This thread needs job j now: workers may claim jobs up to AHEAD past it (jobs.ts). */
  want(j: number): void {
    if (j <= Atomics.load(this.ctl, WANTED)) return;
    Atomics.store(this.ctl, WANTED, j);
    Atomics.notify(this.ctl, WANTED);
  }

  /** Takes the results that have arrived, without waiting; true when there were any (of this import). */
  drain(results: Map<number, Outcome>): boolean {
    let got = false;
    for (const port of this.ports) {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
        const reply = m.message as Reply;
        if (reply.run !== this.run) continue; // late, from an import that ended
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
  collect(results: Map<number, Outcome>): number[] {
    const deadline = Date.now() + this.stallMs;
    for (;;) {
      const seen = Atomics.load(this.ctl, SIGNAL);
      if (this.drain(results)) return [];
      if (Date.now() > deadline) {
        this.healthy = false;
        Atomics.store(this.ctl, STOP, 1);
        Atomics.notify(this.ctl, WANTED);
        const claimed = Math.min(Atomics.load(this.ctl, NEXT), this.jobs!.count);
        const lost: number[] = [];
        for (let j = 0; j < claimed; j++) if (!results.has(j) && !this.mine.has(j)) lost.push(j);
        for (const j of lost) this.mine.add(j);
        return lost;
      }
      Atomics.wait(this.ctl, SIGNAL, seen, 200);
    }
  }

  /** Ends the current import: the workers stop claiming its jobs (finishing the one at hand) and wait for the next. */
  end(): void {
    Atomics.store(this.ctl, STOP, 1);
    Atomics.notify(this.ctl, WANTED);
    this.jobs = null;
  }

  /** Ends a worker at once, as a crash would (tests). */
  kill(i: number): Promise<number> {
    this.healthy = false;
    return this.workers.kill(i);
  }

  /** Stops the workers; never waits for them. */
  close(): void {
    this.end();
    this.healthy = false;
    for (const port of this.ports) port.close();
    void this.workers.terminate();
  }
}

// One pool is kept between imports, its threads idle (and not keeping the process alive): the next import
// starts at once, with code the threads have already compiled, instead of booting threads for a few hundred ms.
let idle: ImportPool | null = null;

export function acquirePool(size: number): ImportPool {
  const pool = idle;
  idle = null;
  if (pool && pool.healthy && pool.size === size) return pool;
  pool?.close();
  return new ImportPool(size);
}

/** The pool kept for the next import, if any (tests). */
export function keptPool(): ImportPool | null {
  return idle;
}

export function releasePool(pool: ImportPool): void {
  pool.end();
  if (idle === null && pool.healthy) idle = pool;
  else pool.close();
}
