// Worker threads as the service's validation and the mirror's import both use them: where a worker's code is (its
// TypeScript from source, the bundled JavaScript when built), and a set of threads started together that never keep
// the process alive, each taking one job at a time, a lost one reported with the job it had in hand (and replaced,
// when the owner allows it). What the jobs are, and in which order they go, stays with each owner.

import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';

const TS_SHIM = new URL('./ts-worker.mjs', import.meta.url);

/**
 * The worker `name` beside the calling module (`caller`: its import.meta.url). From source, the worker's TypeScript;
 * in a bundle (dist/), the worker bundled beside it as `name.mjs` (scripts/build.mjs ENTRIES).
 */
export function workerEntry(name: string, caller: string): URL {
  return new URL(caller.endsWith('.ts') ? `./${name}.ts` : `./${name}.mjs`, caller);
}

export interface WorkerStart {
  workerData?: unknown;
  transferList?: Transferable[];
  resourceLimits?: ResourceLimits;
}

/** Starts a worker on `entry`: TypeScript through the shared tsx shim, JavaScript as it is. */
export function startWorker(entry: URL, options: WorkerStart = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  return new Worker(TS_SHIM, { ...options, argv: [entry.href] });
}

export interface WorkerPoolOptions<T, R> {
  /** How worker `i` starts (its own workerData, say); a replacement starts as the worker it replaces did. */
  start?: (i: number) => WorkerStart;
  /**
   * Workers lost in a row (none answering a job in between) after which the pool gives up: none is started again,
   * since the code or the machine is broken and new threads would only fail again. Lost before that, a worker is
   * replaced. 1 (the default): a lost worker is never replaced.
   */
  giveUpAfter?: number;
  /** Worker `i` has started running its code (its isolate is made). */
  online?: (i: number) => void;
  /** Worker `i` answered `task`, and is idle again. */
  answered?: (task: T, reply: R) => void;
  /**
   * Worker `i` died or failed to start, with `task` in hand or none (null); its replacement, if any, is already
   * starting. Said once per worker, also for those ended by terminate().
   */
  lost?: (i: number, task: T | null) => void;
}

interface Slot<T> { worker: Worker; task: T | null; gone: boolean }

/**
 * `size` threads on `entry`, started at once (so they boot while their first work is being made ready). A job is a
 * message to a worker that answers it with exactly one message; an owner that talks to its workers otherwise (over
 * channels of its own) posts to them directly.
 */
export class WorkerPool<T = unknown, R = unknown> {
  private readonly slots: Slot<T>[] = [];
  private readonly free: Slot<T>[] = [];
  private lostInARow = 0;
  private closed = false;

  constructor(private readonly entry: URL, readonly size: number, private readonly opts: WorkerPoolOptions<T, R> = {}) {
    for (let i = 0; i < size; i++) this.start(i);
  }

  /** Workers waiting for a job. */
  get idle(): number {
    return this.free.length;
  }

  /** True once terminated, or once giveUpAfter workers were lost in a row: no thread starts again. */
  get gaveUp(): boolean {
    return this.closed || this.lostInARow >= (this.opts.giveUpAfter ?? 1);
  }

  /** Posts `message` to an idle worker, which has `task` in hand until it answers (answered) or is lost (lost). */
  run(task: T, message: unknown, transfer: readonly Transferable[] = []): void {
    const slot = this.free.pop();
    if (!slot) throw new Error('no idle worker');
    slot.task = task;
    slot.worker.postMessage(message, transfer);
  }

  /** Posts to worker `i` outside any job (nothing, if it is gone). */
  post(i: number, message: unknown, transfer: readonly Transferable[] = []): void {
    this.slots[i]!.worker.postMessage(message, transfer);
  }

  broadcast(message: unknown): void {
    for (const s of this.slots) s.worker.postMessage(message);
  }

  /** Ends worker `i` at once, as a crash would (tests). */
  kill(i: number): Promise<number> {
    return this.slots[i]!.worker.terminate();
  }

  /** Ends every worker; a job in hand is reported lost. Resolves once all have exited. */
  async terminate(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate().catch(() => {})));
  }

  private start(i: number): void {
    const worker = startWorker(this.entry, this.opts.start?.(i));
    const slot: Slot<T> = { worker, task: null, gone: false };
    worker.on('message', (reply: R) => {
      const task = slot.task;
      if (task === null) return; // posted outside a job: the owner reads those elsewhere
      this.lostInARow = 0;
      slot.task = null;
      this.free.push(slot);
      this.opts.answered?.(task, reply);
    });
    // A worker that fails to start, or dies, sends 'error' and then 'exit': one loss.
    worker.once('online', () => this.opts.online?.(i));
    worker.on('error', () => this.lose(i, slot));
    worker.on('exit', () => this.lose(i, slot));
    worker.unref();
    this.slots[i] = slot;
    this.free.push(slot);
  }

  private lose(i: number, slot: Slot<T>): void {
    if (slot.gone) return;
    slot.gone = true;
    const f = this.free.indexOf(slot);
    if (f >= 0) this.free.splice(f, 1);
    this.lostInARow++;
    const task = slot.task;
    slot.task = null;
    if (!this.gaveUp) this.start(i);
    this.opts.lost?.(i, task);
  }
}
