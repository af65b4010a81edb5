import { errorCodes } from 'fastify';
import type { ParcelProblem } from '../core/parcels/validate.ts';
import { prepareParcels, positionsOf, runJob, type Job, type JobResult, type PreparedPatch, type Validated } from './validation-jobs.ts';
import type { SplitProgress } from './json-split.ts';
import { WorkerPool, workerEntry } from '../platform/node/worker-pool.ts';
import { DEFAULT_MAX_PARCEL_HECTARES } from '../core/parcels/limits.ts';

export { prepareParcels };
export type { PreparedPatch, Validated } from './validation-jobs.ts';

/**
 * A request body kept as bytes by the JSON parser (see raw-body.ts): parsed and validated on the pool. `bulk`: a bulk
 * create's body of ordinary size, parsed and its parcels validated in one job (readBody).
 */
export class RawJson {
  constructor(readonly bytes: Uint8Array, readonly bulk = false) {}
}

/**
 * The parcels of a bulk create's body (RawJson `bulk`), validated by the job that parsed the body, before the route
 * knew the farm and so the account's limit: against the limit `maxHectares` that the organization's last bulk create
 * had. validate() takes the result when the limit is the same, and otherwise validates the body again with the right one.
 */
class PrevalidatedBatch {
  constructor(readonly bytes: Uint8Array, readonly key: string, readonly count: number, readonly maxHectares: number, readonly result: Validated) {}
}

/** Item `index` of a PrevalidatedBatch, in place of the parcel in the body that readBody gives the route. */
export class PrevalidatedParcel {
  constructor(readonly batch: PrevalidatedBatch, readonly index: number) {}
}

/** Organizations whose last limit is kept for the next guess; past this many, the guesses start over. */
const LIMITS_KEPT = 10_000;

/** A parcel of a large body, still JSON text: bytes [start, end) of the body. */
export class RawParcel {
  constructor(readonly bytes: Uint8Array, readonly start: number, readonly end: number) {}
}

/** The error fastify's JSON parser gives for a body that is not JSON, so it is answered the same way. */
export const malformedBody = (): Error => new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();

/** About one parcel at the vertex cap per job, and a whole batch of ordinary parcels in one. */
const JOB_POSITIONS = 10_000;
const JOB_BYTES = 256 * 1024;
/** Jobs from this much work on are long: at most all workers but one run an organization's long jobs. */
const LONG_POSITIONS = 2_000;
const LONG_BYTES = 64 * 1024;

function isLong(job: Job): boolean {
  switch (job.kind) {
    case 'objects': return job.inputs.reduce<number>((n, p) => n + positionsOf(p), 0) >= LONG_POSITIONS;
    case 'slices': {
      let bytes = 0;
      for (let k = 0; k < job.ranges.length; k += 2) bytes += job.ranges[k + 1]! - job.ranges[k]!;
      return bytes >= LONG_BYTES;
    }
    case 'patch': return job.bytes !== null ? job.bytes.length >= LONG_BYTES : positionsOf({ geom: (job.body as { geom?: unknown } | null)?.geom }) >= LONG_POSITIONS;
    default: return job.bytes.length >= LONG_BYTES;
  }
}

/** Workers lost in a row (none answering in between) after which the pool stops starting threads. */
const MAX_LOSSES = 3;

export interface ParcelValidator {
  /** Validates parcel inputs (objects, or RawParcels of a large body) for organization `org`. */
  validate(org: string, inputs: readonly unknown[], maxHectares: number): Promise<Validated>;
  /**
   * A body as the route reads it: a RawJson is parsed on the pool, its `key` array left as RawParcels when it can
   * be split. Throws the malformed-JSON error when it is not JSON.
   */
  readBody(org: string, body: unknown, key: string): Promise<unknown>;
  /**
   * Throws the malformed-JSON error if what readBody left unparsed is not JSON: a request answers that before any
   * other error, as it did when bodies were parsed whole on arrival.
   */
  checkSyntax(org: string, body: unknown): Promise<void>;
  /** Validates a PATCH body (parsed, or a RawJson) for a parcel whose account allows `maxHectares`. */
  validatePatch(org: string, body: unknown, id: number, maxHectares: number): Promise<{ patch: PreparedPatch | null; problems: ParcelProblem[] }>;
  close(): Promise<void>;
}

interface Queued { job: Job; resolve: (r: JobResult) => void; reject: (e: Error) => void; long: boolean; org?: string }

/**
 * Geodesic areas, self-intersection checks and the parsing of large bodies run here, off the thread that owns
 * SQLite and answers requests. Work is cut into jobs of bounded size (about one parcel at the vertex cap, or a
 * batch of ordinary ones), queued per organization, and each free worker takes the next job of the organization
 * served least so far (fair queuing): an organization arriving while another's 50 heavy parcels are queued waits
 * for the jobs already running (one per worker), not for the whole batch; two heavy ones take turns. A newcomer
 * starts level with the least-served organization waiting, so it cannot claim the turns it missed. With `size` 0
 * every job runs on the calling thread.
 */
export class ValidationPool implements ParcelValidator {
  private readonly workers: WorkerPool<Queued, JobResult>;
  /** Queued jobs per organization, organizations in the order they first queued (the last tie-break). */
  private readonly queues = new Map<string, Queued[]>();
  /** Jobs each organization had dispatched since the pool was last idle, and when its last one was. */
  private readonly served = new Map<string, number>();
  private readonly lastServed = new Map<string, number>();
  private dispatched = 0;
  private running = 0;
  /** Long jobs running per organization (see nextOrganization). */
  private readonly runningLong = new Map<string, number>();
  /** The account limit each organization's last bulk create was validated against: the guess for its next one. */
  private readonly limits = new Map<string, number>();
  private closed = false;
  /**
   * Tests only: called when a worker has done a job, whose result is handed back once what it returns settles. A test
   * holds a request at "validated on a worker, not answered yet" and acts meanwhile, instead of sleeping and hoping
   * the request got there. Never called for work done on the calling thread.
   */
  onWorkerResult: ((job: Job) => Promise<unknown> | void) | null = null;

  constructor(private readonly size: number) {
    // Started with the service: the first batch must not wait for a thread to boot. A worker that dies hands its job
    // to this thread and a new one takes its place, unless MAX_LOSSES died in a row: then all work runs here.
    this.workers = new WorkerPool<Queued, JobResult>(workerEntry('validation-worker', import.meta.url), size, {
      giveUpAfter: MAX_LOSSES,
      answered: (item, r) => this.answered(item, r),
      lost: (_, item) => this.lost(item),
    });
  }

  async validate(org: string, inputs: readonly unknown[], maxHectares: number): Promise<Validated> {
    if (inputs[0] instanceof PrevalidatedParcel) return this.prevalidated(org, inputs, maxHectares);
    const jobs = inputs.some((p) => p instanceof RawParcel)
      ? this.sliceJobs(inputs as RawParcel[], maxHectares)
      : this.objectJobs(inputs, maxHectares);
    const results = await Promise.all(jobs.map((j) => this.run(org, j)));
    const parts: Validated[] = [];
    for (const r of results) {
      if (r.kind === 'malformed') throw malformedBody();
      if (r.kind === 'validated') parts.push(r.result);
    }
    const problems = parts.flatMap((p) => p.problems);
    return problems.length ? { parcels: [], problems } : { parcels: parts.flatMap((p) => p.parcels), problems };
  }

  async readBody(org: string, body: unknown, key: string): Promise<unknown> {
    if (!(body instanceof RawJson)) return body;
    if (body.bulk) return this.readBulk(org, body.bytes, key);
    const bytes = this.share(body.bytes);
    const items: RawParcel[] = [];
    const add = (ranges: number[]) => {
      for (let k = 0; k < ranges.length; k += 2) items.push(new RawParcel(bytes, ranges[k]!, ranges[k + 1]!));
    };
    // In steps of about a parcel's worth each, queued like any other job.
    for (let r = await this.run(org, { kind: 'split', bytes, key }); ; r = await this.run(org, { kind: 'split', bytes, key, progress: (r as { progress: SplitProgress }).progress })) {
      if (r.kind === 'malformed') throw malformedBody();
      if (r.kind === 'whole') return r.value;
      if (r.kind === 'split-more') {
        add(r.items);
        continue;
      }
      if (r.kind !== 'split') throw new Error(`unexpected ${r.kind}`);
      add(r.items);
      return { ...r.envelope, [key]: items };
    }
  }

  /**
   * A bulk create's body of ordinary size, parsed and its parcels validated in one job, for the limit guessed (the
   * organization's last, or the default): its `key` array comes back as PrevalidatedParcels.
   */
  private async readBulk(org: string, bytes: Uint8Array, key: string): Promise<unknown> {
    const maxHectares = this.limits.get(org) ?? DEFAULT_MAX_PARCEL_HECTARES;
    const r = await this.run(org, { kind: 'bulk', bytes, key, maxHectares });
    if (r.kind === 'malformed') throw malformedBody();
    if (r.kind !== 'bulk') throw new Error(`unexpected ${r.kind}`);
    if (r.result === null) return r.body;
    const batch = new PrevalidatedBatch(bytes, key, r.count, maxHectares, r.result);
    const items: PrevalidatedParcel[] = [];
    for (let i = 0; i < r.count; i++) items.push(new PrevalidatedParcel(batch, i));
    (r.body as Record<string, unknown>)[key] = items;
    return r.body;
  }

  /** The parcels readBulk validated, when they were validated against `maxHectares`; validated again otherwise. */
  private async prevalidated(org: string, inputs: readonly unknown[], maxHectares: number): Promise<Validated> {
    const { batch } = inputs[0] as PrevalidatedParcel;
    if (inputs.length !== batch.count || inputs.some((p, i) => !(p instanceof PrevalidatedParcel) || p.batch !== batch || p.index !== i)) {
      throw new Error('validate: the parcels of a prevalidated body must be passed whole, in order');
    }
    if (this.limits.size >= LIMITS_KEPT && !this.limits.has(org)) this.limits.clear();
    this.limits.set(org, maxHectares);
    if (batch.maxHectares === maxHectares) return batch.result;
    const r = await this.run(org, { kind: 'bulk', bytes: batch.bytes, key: batch.key, maxHectares });
    if (r.kind !== 'bulk' || r.result === null) throw new Error(`unexpected ${r.kind} validating a body parsed before`);
    return r.result;
  }

  async checkSyntax(org: string, body: unknown): Promise<void> {
    if (body instanceof RawJson) {
      const r = await this.run(org, { kind: 'whole', bytes: this.share(body.bytes), keep: false });
      if (r.kind === 'malformed') throw malformedBody();
      return;
    }
    if (body === null || typeof body !== 'object') return;
    for (const value of Object.values(body)) {
      if (!Array.isArray(value) || !value.some((p) => p instanceof RawParcel)) continue;
      const results = await Promise.all(this.sliceJobs(value as RawParcel[], null).map((j) => this.run(org, j)));
      if (results.some((r) => r.kind === 'malformed')) throw malformedBody();
    }
  }

  async validatePatch(org: string, body: unknown, id: number, maxHectares: number): Promise<{ patch: PreparedPatch | null; problems: ParcelProblem[] }> {
    const raw = body instanceof RawJson;
    const r = await this.run(org, { kind: 'patch', body: raw ? null : body, bytes: raw ? this.share(body.bytes) : null, id, maxHectares });
    if (r.kind === 'malformed') throw malformedBody();
    if (r.kind !== 'patch') throw new Error(`unexpected ${r.kind}`);
    return { patch: r.patch, problems: r.problems };
  }

  async close(): Promise<void> {
    this.closed = true;
    // Queued work is done here instead: nothing a request waits for is dropped.
    for (const q of this.queues.values()) for (const item of q) this.runHere(item);
    this.queues.clear();
    await this.workers.terminate();
  }

  private objectJobs(inputs: readonly unknown[], maxHectares: number): Job[] {
    const jobs: Job[] = [];
    for (let first = 0; first < inputs.length;) {
      let end = first;
      let weight = 0;
      while (end < inputs.length && (end === first || weight < JOB_POSITIONS)) weight += positionsOf(inputs[end++]);
      jobs.push({ kind: 'objects', inputs: inputs.slice(first, end), first, maxHectares });
      first = end;
    }
    return jobs;
  }

  private sliceJobs(inputs: readonly RawParcel[], maxHectares: number | null): Job[] {
    const jobs: Job[] = [];
    for (let first = 0; first < inputs.length;) {
      const ranges: number[] = [];
      let end = first;
      let bytes = 0;
      while (end < inputs.length && (end === first || bytes < JOB_BYTES)) {
        const p = inputs[end++]!;
        ranges.push(p.start, p.end);
        bytes += p.end - p.start;
      }
      jobs.push({ kind: 'slices', bytes: inputs[first]!.bytes, ranges, first, maxHectares });
      first = end;
    }
    return jobs;
  }

  /** Workers read a large body in place: shared memory (as raw-body.ts reads it), never cloned per job. */
  private share(bytes: Uint8Array): Uint8Array {
    if (this.size === 0 || bytes.buffer instanceof SharedArrayBuffer) return bytes;
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
    return shared;
  }

  private run(org: string, job: Job): Promise<JobResult> {
    return new Promise<JobResult>((resolve, reject) => {
      const item: Queued = { job, resolve, reject, long: isLong(job) };
      if (this.size === 0 || this.closed || this.workers.gaveUp) {
        this.runHere(item);
        return;
      }
      let q = this.queues.get(org);
      if (!q) {
        let level = Infinity;
        for (const other of this.queues.keys()) level = Math.min(level, this.served.get(other) ?? 0);
        if (level !== Infinity) this.served.set(org, Math.max(this.served.get(org) ?? 0, level));
        this.queues.set(org, (q = []));
      }
      q.push(item);
      this.dispatch();
    });
  }

  private runHere(item: Queued): void {
    try {
      item.resolve(runJob(item.job));
    } catch (err) {
      item.reject(err as Error);
    }
  }

  private dispatch(): void {
    while (this.workers.idle > 0 && this.queues.size > 0) {
      const org = this.nextOrganization();
      if (org === '') break;
      const q = this.queues.get(org)!;
      const item = q.shift()!;
      if (q.length === 0) this.queues.delete(org);
      this.served.set(org, (this.served.get(org) ?? 0) + 1);
      this.lastServed.set(org, ++this.dispatched);
      item.org = org;
      if (item.long) this.runningLong.set(org, (this.runningLong.get(org) ?? 0) + 1);
      this.running++;
      this.workers.run(item, item.job);
    }
  }

  /**
   * The waiting organization served least, then longest ago (never first), then first to queue; '' when none may
   * start its next job: a long one (a parcel at the vertex cap, a step of a large body) only while the
   * organization has fewer than all workers but one on long jobs, so that another organization's batch finds a
   * worker free instead of waiting for a heavy job to end. Short jobs may use every worker.
   */
  private nextOrganization(): string {
    let best = '';
    let bestServed = Infinity;
    let bestLast = Infinity;
    const share = Math.max(1, this.size - 1);
    for (const org of this.queues.keys()) {
      if (this.queues.get(org)![0]!.long && (this.runningLong.get(org) ?? 0) >= share) continue;
      const served = this.served.get(org) ?? 0;
      const last = this.lastServed.get(org) ?? -1;
      if (served < bestServed || (served === bestServed && last < bestLast)) {
        best = org;
        bestServed = served;
        bestLast = last;
      }
    }
    return best;
  }

  /** A job finished: when nothing is left anywhere, the counts start again (and do not grow without end). */
  private finished(item: Queued): void {
    if (item.long) {
      const n = (this.runningLong.get(item.org!) ?? 1) - 1;
      if (n > 0) this.runningLong.set(item.org!, n);
      else this.runningLong.delete(item.org!);
    }
    this.running--;
    if (this.running === 0 && this.queues.size === 0) {
      this.served.clear();
      this.lastServed.clear();
    }
  }

  private answered(item: Queued, r: JobResult): void {
    this.finished(item);
    const held = this.onWorkerResult?.(item.job);
    if (held) void held.then(() => item.resolve(r), () => item.resolve(r));
    else item.resolve(r);
    this.dispatch();
  }

  /** A worker died: its job is done here; once the pool gave up, so is every job queued. */
  private lost(item: Queued | null): void {
    if (item) {
      this.finished(item);
      this.runHere(item);
    }
    if (this.closed) return;
    if (this.workers.gaveUp) {
      for (const q of this.queues.values()) for (const queued of q) this.runHere(queued);
      this.queues.clear();
      return;
    }
    this.dispatch();
  }
}

/**
 * Runs `check` (a request's checks before its parcels are validated); when it throws, a body not yet parsed is
 * parsed first, so a body that is not JSON is answered as such, as when every body was parsed on arrival.
 */
export async function syntaxFirst<T>(validator: ParcelValidator, org: string, body: unknown, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    await validator.checkSyntax(org, body);
    throw err;
  }
}

/** Validation on the request's own thread (tests, and VALIDATION_WORKERS=0). */
export const inlineValidator: ParcelValidator = new ValidationPool(0);

export const makeValidator = (workers: number): ParcelValidator => (workers > 0 ? new ValidationPool(workers) : inlineValidator);
