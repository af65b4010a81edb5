// The worker pool on real threads: TypeScript workers started through the shared shim and JavaScript ones as they
// are, jobs answered once each, transfer lists, a lost worker reported with its job and replaced until the pool
// gives up, and terminate.
import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { WorkerPool, startWorker, workerEntry } from './worker-pool.ts';
import type { EchoJob } from './fixtures/echo-worker.ts';

const ECHO = new URL('./fixtures/echo-worker.ts', import.meta.url);
const PLAIN = new URL('./fixtures/plain-worker.mjs', import.meta.url);

interface Reply { value: unknown; workerData?: unknown; argv?: string[]; notes?: unknown[]; plain?: boolean }
interface Event { answered?: [string, Reply]; lost?: [number, string | null] }

/** A pool whose answers and losses arrive as events, in order. */
function pool(entry: URL, size: number, giveUpAfter?: number) {
  const events: Event[] = [];
  let wake = () => {};
  const p = new WorkerPool<string, Reply>(entry, size, {
    giveUpAfter,
    start: (i) => ({ workerData: { i } }),
    answered: (task, reply) => { events.push({ answered: [task, reply] }); wake(); },
    lost: (i, task) => { events.push({ lost: [i, task] }); wake(); },
  });
  pools.push(p);
  const next = async (): Promise<Event> => {
    while (events.length === 0) await new Promise<void>((r) => (wake = r));
    return events.shift()!;
  };
  return { p, next, run: (task: string, job: EchoJob, transfer?: ArrayBuffer[]) => p.run(task, job, transfer) };
}
const pools: WorkerPool<string, Reply>[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.terminate()));
});

describe('workerEntry', () => {
  it('names the TypeScript beside a module run from source, and the bundled JavaScript beside a bundle', () => {
    expect(workerEntry('worker', 'file:///repo/db/import/pool.ts').href).toBe('file:///repo/db/import/worker.ts');
    expect(workerEntry('worker', 'file:///repo/dist/chunk-ABC.mjs').href).toBe('file:///repo/dist/worker.mjs');
  });
});

describe('startWorker', () => {
  it('runs a TypeScript worker through the shim, which leaves it the workerData and arguments it was given', async () => {
    const w = startWorker(ECHO, { workerData: { x: 1 } });
    w.postMessage({ op: 'echo', value: 'hi' } satisfies EchoJob);
    const [reply] = await once(w, 'message') as [Reply];
    expect(reply).toEqual({ value: 'hi', workerData: { x: 1 }, argv: [], notes: [] });
    await w.terminate();
  });

  it('runs a JavaScript worker as it is', async () => {
    const w = startWorker(PLAIN);
    w.postMessage(5);
    expect((await once(w, 'message'))[0]).toEqual({ value: 5, plain: true });
    await w.terminate();
  });
});

describe('WorkerPool', () => {
  it('starts its workers at once, each as asked, and answers each job once, the worker idle again', async () => {
    const { p, next, run } = pool(ECHO, 2);
    expect(p.idle).toBe(2);
    run('a', { op: 'echo', value: 1 });
    run('b', { op: 'echo', value: 2 });
    expect(p.idle).toBe(0);
    expect(() => run('c', { op: 'echo', value: 3 })).toThrow(/no idle worker/);
    const got = [await next(), await next()].map((e) => e.answered!);
    expect(got.map(([task, r]) => [task, r.value]).sort()).toEqual([['a', 1], ['b', 2]]);
    expect(got.map(([, r]) => r.workerData).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([{ i: 0 }, { i: 1 }]);
    expect(p.idle).toBe(2);
  });

  it('hands over what the transfer list names instead of copying it', async () => {
    const { next, run } = pool(ECHO, 1);
    const buffer = new Uint8Array([1, 2, 3]).buffer;
    run('t', { op: 'bytes', buffer }, [buffer]);
    expect(buffer.byteLength).toBe(0);
    expect((await next()).answered).toEqual(['t', { value: 6 }]);
  });

  it('reports a worker lost with the job it had, once, and replaces it until giveUpAfter were lost in a row', async () => {
    const { p, next, run } = pool(ECHO, 1, 3);
    run('x1', { op: 'exit' });
    expect(await next()).toEqual({ lost: [0, 'x1'] });
    expect(p.gaveUp).toBe(false);
    // The replacement answers: the count starts again.
    run('ok', { op: 'echo', value: 0 });
    expect((await next()).answered![0]).toBe('ok');
    run('x2', { op: 'throw' });
    expect(await next()).toEqual({ lost: [0, 'x2'] });
    run('x3', { op: 'exit' });
    expect(await next()).toEqual({ lost: [0, 'x3'] });
    expect(p.gaveUp).toBe(false);
    run('x4', { op: 'exit' });
    expect(await next()).toEqual({ lost: [0, 'x4'] });
    expect(p.gaveUp).toBe(true);
    expect(p.idle).toBe(0);
  });

  it('replaces none by default, and reports an idle worker lost with no job', async () => {
    const { p, next } = pool(ECHO, 2);
    await p.kill(1);
    expect(await next()).toEqual({ lost: [1, null] });
    expect(p.gaveUp).toBe(true);
    expect(p.idle).toBe(1);
  });

  it('reports a worker that cannot start as lost', async () => {
    const { p, next } = pool(new URL('./fixtures/no-such-worker.mjs', import.meta.url), 1);
    expect(await next()).toEqual({ lost: [0, null] });
    expect(p.idle).toBe(0);
  });

  it('posts to one worker or to all outside any job', async () => {
    const { p, next, run } = pool(ECHO, 2);
    p.post(0, { op: 'note', value: 'one' });
    p.broadcast({ op: 'note', value: 'all' });
    run('a', { op: 'echo', value: 1 });
    run('b', { op: 'echo', value: 2 });
    const replies = [(await next()).answered![1], (await next()).answered![1]];
    const notesOf = (i: number) => replies.find((r) => (r.workerData as { i: number }).i === i)!.notes;
    expect(notesOf(0)).toEqual(['one', 'all']);
    expect(notesOf(1)).toEqual(['all']);
  });

  it('terminate reports the jobs in hand lost, and starts no worker again', async () => {
    const { p, next, run } = pool(ECHO, 2, 10);
    run('held', { op: 'echo', value: 'late' });
    await p.terminate();
    const lost = [(await next()).lost!, (await next()).lost!];
    expect(lost.map(([, task]) => task).sort()).toEqual(['held', null]);
    expect(p.gaveUp).toBe(true);
    expect(p.idle).toBe(0);
  });
});
