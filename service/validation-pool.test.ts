// The validation pool on real worker threads: fairness between organizations, and results identical to core's
// validateParcels however a batch is cut into jobs or read from a large body.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { availableParallelism } from 'node:os';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { prepareParcels, RawJson, ValidationPool } from './validation-pool.ts';
import { configFromEnv } from './config.ts';

/** A valid parcel whose ring has `positions` positions (closing one included), about 30 ha. */
function roundParcel(name: string, positions: number, lon = -4.78, lat = 37.88) {
  const ring: number[][] = [];
  for (let i = 0; i < positions - 1; i++) {
    const t = (2 * Math.PI * i) / (positions - 1);
    ring.push([lon + 0.004 * Math.cos(t), lat + 0.003 * Math.sin(t)]);
  }
  ring.push([...ring[0]!]);
  return { name, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } };
}

const pools: ValidationPool[] = [];
function pool(size: number): ValidationPool {
  const p = new ValidationPool(size);
  pools.push(p);
  return p;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

describe('ValidationPool fairness', () => {
  it("answers another organization's small batch before one organization's heavy batch that arrived first", async () => {
    const one = pool(1);
    const heavy = Array.from({ length: 12 }, (_, i) => roundParcel(`Heavy ${i}`, 10_000));
    const small = Array.from({ length: 50 }, (_, i) => roundParcel(`Small ${i}`, 12));
    const order: string[] = [];
    const a = one.validate('org-a', heavy, 100).then((r) => { order.push('A'); return r; });
    const b = one.validate('org-b', small, 100).then((r) => { order.push('B'); return r; });
    const c = one.validate('org-c', small.slice(0, 5), 100).then((r) => { order.push('C'); return r; });
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    // One worker, A's first job already running: B waits for it, C for it and B's, neither for all twelve.
    expect(order).toEqual(['B', 'C', 'A']);
    expect(ra.parcels).toHaveLength(12);
    expect(rb.parcels).toHaveLength(50);
    expect(rc.parcels).toHaveLength(5);
  });

  it('lets two heavy organizations take turns, the later one not catching up on the turns it missed', async () => {
    const one = pool(1);
    const heavy = (org: string) => Array.from({ length: 4 }, (_, i) => roundParcel(`${org} ${i}`, 10_000));
    const done: string[] = [];
    const track = (org: string, k: number) => one.validate(org, [heavy(org)[k]!], 100).then(() => done.push(`${org}${k}`));
    // A queues four one-job batches; once its first is running, B queues four.
    const a = [0, 1, 2, 3].map((k) => track('A', k));
    const b = [0, 1, 2, 3].map((k) => track('B', k));
    await Promise.all([...a, ...b]);
    expect(done).toEqual(['A0', 'B0', 'A1', 'B1', 'A2', 'B2', 'A3', 'B3']);
  });

  it("keeps a worker free of one organization's heavy jobs, for the next organization's batch", async () => {
    const two = pool(2);
    // Both threads booted first (a small job each, dispatched at once, so one to each): a job posted to a thread still
    // booting waits for it, and on a busy CI the first thread finished A's first heavy job before the second had
    // booted to take B's (done: A0 first). What is under test is the scheduling, not the threads' start-up.
    await Promise.all([two.validate('warm-1', [roundParcel('W1', 12)], 100), two.validate('warm-2', [roundParcel('W2', 12)], 100)]);
    const done: string[] = [];
    // Four one-job heavy batches from A: with two workers, only one of them runs at a time.
    const a = [0, 1, 2, 3].map((k) => two.validate('org-a', [roundParcel(`A${k}`, 10_000)], 100).then(() => done.push(`A${k}`)));
    const b = two.validate('org-b', [roundParcel('B', 12)], 100).then(() => done.push('B'));
    await Promise.all([...a, b]);
    expect(done[0]).toBe('B');
    expect(done.filter((x) => x !== 'B')).toEqual(['A0', 'A1', 'A2', 'A3']);
  });

  it("keeps one organization's batches in the order they came", async () => {
    const one = pool(1);
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((k) => one.validate('org-a', [roundParcel(`P${k}`, k === 0 ? 10_000 : 8)], 100).then(() => order.push(k))));
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

describe('ValidationPool shutdown', () => {
  it('does the job a worker had in hand when closed on this thread, and answers the batch as core would', async () => {
    const p = new ValidationPool(1);
    const inputs = [roundParcel('Heavy', 10_000)];
    const pending = p.validate('org', inputs, 100);
    await p.close();
    expect(await pending).toEqual(prepareParcels(inputs, 100));
    // Closed: later work runs here too.
    expect(await p.validate('org', inputs, 100)).toEqual(prepareParcels(inputs, 100));
  });
});

describe('ValidationPool results', () => {
  const two = pool(2);
  // Parcels big enough that a batch is cut into several jobs, some broken in ways core names by index.
  const parcel = fc.record({
    positions: fc.integer({ min: 4, max: 6000 }),
    defect: fc.constantFrom('none', 'none', 'twist', 'name', 'unclosed', 'not-object'),
  }).map(({ positions, defect }) => {
    if (defect === 'not-object') return 42 as unknown;
    const p = roundParcel('P', positions) as { name: unknown; geom: { geometry: { coordinates: number[][][] } } };
    const ring = p.geom.geometry.coordinates[0]!;
    if (defect === 'twist' && ring.length > 6) [ring[2], ring[3]] = [ring[3]!, ring[2]!];
    if (defect === 'name') p.name = '';
    if (defect === 'unclosed') ring.pop();
    return p as unknown;
  });

  it('gives what core gives, parcel for parcel and problem for problem, however the batch is cut', async () => {
    await fc.assert(fc.asyncProperty(fc.array(parcel, { minLength: 1, maxLength: 12 }), async (inputs) => {
      expect(await two.validate('org', inputs, 100)).toEqual(prepareParcels(inputs, 100));
    }), { numRuns: 25 });
  });

  it('gives the same for a large body read and validated on the workers, and refuses one that is not JSON', async () => {
    await fc.assert(fc.asyncProperty(fc.array(parcel, { minLength: 1, maxLength: 8 }), fc.boolean(), async (inputs, broken) => {
      let text = JSON.stringify({ farm: { id: 1 }, parcels: inputs });
      // Broken inside a parcel when there is one, else by a trailing comma in the array.
      if (broken) text = text.includes('"geom"') ? text.replace('"geom"', '"geom":') : `${text.slice(0, -2)},]}`;
      const run = async () => {
        const b = await two.readBody('org', new RawJson(Buffer.from(text)), 'parcels') as { farm: unknown; parcels: unknown[] };
        expect(b.farm).toEqual({ id: 1 });
        return two.validate('org', b.parcels, 100);
      };
      if (broken) await expect(run()).rejects.toMatchObject({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
      else expect(await run()).toEqual(prepareParcels(inputs, 100));
    }), { numRuns: 20 });
  });

  it('gives the same for a bulk body parsed and validated in one job, whether the limit guessed was the right one or not', async () => {
    // Limits of 100 ha (the default guess) and 20 ha (under the ~30 ha parcels: every one over it), in turns.
    const bulk = pool(1);
    const org = 'org-bulk';
    await fc.assert(fc.asyncProperty(fc.array(parcel, { minLength: 1, maxLength: 5 }), fc.constantFrom(100, 20), fc.boolean(), async (inputs, limit, broken) => {
      let text = JSON.stringify({ parcels: inputs, farm: { id: 7 } });
      if (broken) text = `${text.slice(0, -1)},}`;
      const run = async () => {
        const b = await bulk.readBody(org, new RawJson(Buffer.from(text), true), 'parcels') as { farm: unknown; parcels: unknown[] };
        // The envelope as parsed, its members in their order.
        expect(Object.keys(b)).toEqual(['parcels', 'farm']);
        expect(b.farm).toEqual({ id: 7 });
        expect(b.parcels).toHaveLength(inputs.length);
        return bulk.validate(org, b.parcels, limit);
      };
      if (broken) await expect(run()).rejects.toMatchObject({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
      else expect(await run()).toEqual(prepareParcels(inputs, limit));
    }), { numRuns: 20 });
    // A body that is not a bulk create's shape comes back parsed whole, for the route to refuse.
    expect(await bulk.readBody(org, new RawJson(Buffer.from('{"parcels":[]}'), true), 'parcels')).toEqual({ parcels: [] });
  });
});

/** The nice value of one of this process's threads, from /proc (field 19 of its stat). */
function threadNice(tid: string | number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Nice values of all this process's threads. */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map(threadNice);
}

describe.runIf(existsSync('/proc/thread-self'))('worker priority', () => {
  it('runs the validation workers below the thread that answers requests (nice 10)', async () => {
    const before = threadNices().filter((n) => n === 10).length;
    const p = pool(2);
    await Promise.all([p.validate('a', [roundParcel('x', 10_000)], 100), p.validate('b', [roundParcel('y', 10_000)], 100)]);
    expect(threadNices().filter((n) => n === 10).length).toBeGreaterThanOrEqual(before + 2);
    // The main thread by its id (the process's): the listing is sorted as text, so once thread ids pass a power of
    // ten (pid 9990, workers 10001…) a worker comes first, and CI once read a worker's nice as the main thread's.
    expect(threadNice(process.pid)).toBe(0);
  });
});

describe('VALIDATION_WORKERS', () => {
  it('defaults to one worker per core, and 0 keeps validation on the request thread', () => {
    expect(configFromEnv({}).validationWorkers).toBe(availableParallelism());
    expect(configFromEnv({ VALIDATION_WORKERS: '0' }).validationWorkers).toBe(0);
  });
});
